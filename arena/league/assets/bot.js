// The owner's log tail: fetched with the token the owner types (never stored by the page).
"use strict";
(() => {
  const form = document.getElementById("log-form");
  const out = document.getElementById("log");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = document.getElementById("token").value.trim();
    const url = location.pathname.replace(/^(.*)\/bots\//, "$1/api/bots/") + "/log";
    out.hidden = false;
    try {
      const answer = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
      const body = await answer.json();
      if (!answer.ok) {
        out.textContent = body.error || `error ${answer.status}`;
        return;
      }
      out.textContent = Object.entries(body.logs)
        .map(([name, tail]) => `== ${name}\n${tail || "(empty)"}`).join("\n\n");
    } catch (err) {
      out.textContent = `cannot read the log: ${err}`;
    }
  });
})();
