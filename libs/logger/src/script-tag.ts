// The <script> form: settings from data- attributes, the API on window.spoor.
//   <script defer src="https://spoor.example/logger.js" data-project="acme/web"></script>
import * as spoor from './spoor-logger.js';

const script = document.currentScript as HTMLScriptElement | null;
(window as unknown as { spoor: typeof spoor }).spoor = spoor;

if (script?.dataset.project) {
  const d = script.dataset;
  /** Present and not "false": on. */
  const on = (v: string | undefined, fallback: boolean) => (v === undefined ? fallback : v !== 'false');
  spoor.init({
    endpoint: d.endpoint || new URL('/v1/event', script.src).href,
    project: d.project!,
    options: {
      session: on(d.session, true),
      clicks: on(d.clicks, true),
      navigation: on(d.navigation, true),
      scrolls: on(d.scrolls, true),
      respectDnt: on(d.dnt, false),
    },
  });
}
