// Mounts its children just after the page's first render, as a React transition.
//
// A page that appears at once when its state arrives (e.g. /results) would otherwise
// build its whole tree in one task that keeps the browser from answering for a long
// moment. The content wrapped here is built afterwards in small slices that the browser
// can interrupt (startTransition), so what is on screen first stays responsive.
import { Children, startTransition, useEffect, useState } from "react";

export function DeferredMount({ children }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => startTransition(() => setReady(true)), 0);
    return () => clearTimeout(timer);
  }, []);
  return ready ? children : null;
}

// Shows its second child (the loading view) until `show` is true, then its first child
// (the page's content), which React builds as a transition: in small slices while the
// loading view stays on screen, and swapped in at once when it is complete. The moment a
// page's state arrives thus costs no long task, and the loading view is never replaced
// by a blank.
export function ShowWhenReady({ show, children }) {
  const [content, loading] = Children.toArray(children);
  const [shown, setShown] = useState(show);
  useEffect(() => {
    if (show !== shown) startTransition(() => setShown(show));
  }, [show, shown]);
  return shown ? content : loading;
}
