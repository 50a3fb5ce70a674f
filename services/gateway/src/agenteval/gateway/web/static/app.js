// The dashboard's only script: copy buttons, and a running run's live progress (server-sent events).
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button.copy");
  if (!button) return;
  const from = button.dataset.copyFrom ? document.getElementById(button.dataset.copyFrom) : null;
  const text = from ? from.value : button.dataset.copy;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    if (from) { from.select(); document.execCommand("copy"); }
  }
  button.textContent = "copied";
  setTimeout(() => { button.textContent = "copy"; }, 1500);
});

document.addEventListener("DOMContentLoaded", () => {
  const live = document.getElementById("live");
  if (!live) return;
  const progress = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  const source = new EventSource(`/api/v1/runs/${encodeURIComponent(live.dataset.run)}/events`);
  const update = (message) => {
    const doc = JSON.parse(message.data);
    const total = doc.trials_total || Number(progress.max);
    const graded = doc.trials_graded || 0;
    progress.max = total;
    progress.value = graded;
    text.textContent = `${graded}/${total} trials graded` + (doc.passes !== undefined ? `, ${doc.passes} passed` : "");
  };
  for (const kind of ["submitted", "progress", "trials"]) source.addEventListener(kind, update);
  for (const kind of ["completed", "cancelled", "failed"]) {
    source.addEventListener(kind, (message) => { update(message); source.close(); window.location.reload(); });
  }
  source.addEventListener("error", () => { /* EventSource reconnects by itself */ });
});
