// Keyboard navigation between criteria on the grading page: Enter or ArrowDown moves to
// the next criterion's points field, ArrowUp to the previous one. Leaving a changed
// field fires its change event, which htmx saves; on the last field Enter saves in place.
(function () {
  const fields = Array.from(document.querySelectorAll("form.criterion input.points"));
  fields.forEach(function (field, index) {
    field.addEventListener("keydown", function (event) {
      let target = null;
      if (event.key === "Enter" || event.key === "ArrowDown") target = fields[index + 1];
      if (event.key === "ArrowUp") target = fields[index - 1];
      if (event.key === "Enter") {
        event.preventDefault();
        if (!target) field.dispatchEvent(new Event("change", { bubbles: true }));
      }
      if (target) {
        event.preventDefault();
        target.focus();
        target.select();
      }
    });
  });
  if (fields.length && !fields[0].disabled) fields[0].focus();
})();
