/**
 * Pages have no teardown: the router replaces them. `onLeft` runs once the page's element, having
 * been shown, is no longer in the document (checked each second), or was never shown within 10 s.
 * The Live page ends its stream this way, the Overview its "visitors now" polling.
 */
export function whenLeft(el: HTMLElement, onLeft: () => void): void {
  let shown = false;
  const started = Date.now();
  const timer = setInterval(() => {
    if (el.isConnected) return void (shown = true);
    if (shown || Date.now() - started > 10_000) {
      clearInterval(timer);
      onLeft();
    }
  }, 1000);
}
