// Mounts its children just after the page's first render, as a React transition.
//
// A page that appears at once when its state arrives (e.g. /results) would otherwise
// build its whole tree in one task that keeps the browser from answering for a long
// moment. The content wrapped here is built afterwards in small slices that the browser
// can interrupt (startTransition), so what is on screen first stays responsive.
import { startTransition, useEffect, useState } from "react";

export function DeferredMount({ children }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => startTransition(() => setReady(true)), 0);
    return () => clearTimeout(timer);
  }, []);
  return ready ? children : null;
}
