// The comparison sheet: the chair decides from it. A cell opened for a decision is marked
// and scrolled into view and its points field takes focus; a refused decision puts focus
// on the field at fault; after a decision focus goes to "Next discrepancy", which the key
// "n" also follows (outside form fields).
(function () {
  const panel = document.getElementById("decide-panel");
  if (!panel) return;
  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target !== panel) return;
    document.querySelectorAll("td.cell.current").forEach(function (cell) {
      cell.classList.remove("current");
    });
    const section = panel.querySelector("[data-cell]");
    const cell = section && document.getElementById(section.dataset.cell);
    if (cell) {
      cell.classList.add("current");
      cell.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    const next = document.getElementById("next-discrepancy");
    // htmx wires up swapped-in content only when it settles (20 ms later): until then the
    // decision form and "Next discrepancy" are a plain form and link, and Enter on either
    // would leave the sheet. Wire the panel now, before it takes focus.
    if (window.htmx) window.htmx.process(panel);
    const invalid = panel.querySelector("[aria-invalid=true]");
    const decided = section && section.dataset.decided;
    const target = invalid || (decided ? next : panel.querySelector("#sheet_points")) || next;
    if (!target) return;
    target.focus({ preventScroll: true });
    if (target.select) target.select();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "n" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    const next = document.getElementById("next-discrepancy");
    if (!next) return;
    event.preventDefault();
    next.click();
  });
})();
