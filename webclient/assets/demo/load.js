// Shows the page's load failure message, with a retry, when its module
// script or one of the modules it imports cannot be loaded (a 429 or 503,
// a lost connection): without it the page would say "Restoring your
// session…" for ever. It is a classic script that the page runs right
// after declaring its module, so that it listens before the module's
// error can fire. Should it not load itself, the stylesheet shows the
// same message once the page has been loading for 20 seconds.

"use strict";

{
  const modules = document.querySelectorAll('script[type="module"]');

  /** Shows the message: the page cannot work without its scripts. */
  const failed = (event) => {
    document.body.dataset.state = "failed";
    document.body.dataset.failedScript = new URL(event.target.src, location.href).pathname;
    const who = document.getElementById("who");
    if (who) who.textContent = "The page could not load";
    document.getElementById("load-failed").hidden = false;
    document.getElementById("load-retry").focus();
  };
  for (const m of modules) m.addEventListener("error", failed);

  // The retry loads the page again at its full address: a mail's link
  // (its token still in the address bar, since no script took it) goes on.
  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("load-retry-form").addEventListener("submit", (e) => {
      e.preventDefault();
      location.reload();
    });
  });
}
