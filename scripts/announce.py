"""Print PrettyScore's address once the app answers: `announce.py URL PROBE_BASE PID`.

`make run` starts this in the background next to `reflex run`; it waits until the
backend answers /ping and the home page is served, then prints the address the user
should open. It gives up quietly when the app process (PID) ends.
"""

import os
import sys
import time
import urllib.request


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except Exception:
        return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def main() -> int:
    public_url, probe_base, pid = sys.argv[1], sys.argv[2].rstrip("/"), int(sys.argv[3])
    deadline = time.monotonic() + 3600
    while time.monotonic() < deadline and alive(pid):
        if answers(f"{probe_base}/ping") and answers(f"{probe_base}/"):
            line = f"PrettyScore is running at {public_url}"
            bar = "=" * len(line)
            print(f"\n{bar}\n{line}\n{bar}\n", flush=True)
            return 0
        time.sleep(1)
    return 1


if __name__ == "__main__":
    sys.exit(main())
