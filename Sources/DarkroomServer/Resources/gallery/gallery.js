// The seeds' photo table in a page. The server does the work; this page
// says which rows are visible and when scrolling starts and stops, and
// shows what the server streams back.
"use strict";

const state = { viewer: null, rows: [], visible: new Set(), scrolling: false, states: {} };

async function start() {
  const list = await (await fetch("/api/list")).json();
  state.rows = list.rows;
  const container = document.getElementById("rows");
  for (const row of list.rows) container.appendChild(makeRow(row));

  const viewer = await (await fetch("/api/viewers", { method: "POST" })).json();
  state.viewer = viewer.id;
  const events = new EventSource(`/api/viewers/${viewer.id}/events`);
  events.addEventListener("row", (e) => applyRow(JSON.parse(e.data)));
  events.addEventListener("status", (e) => showStatus(JSON.parse(e.data)));

  watchVisibility();
  watchScrolling();
}

function makeRow(row) {
  const item = document.createElement("li");
  item.className = "row new";
  item.dataset.row = row.id;
  item.innerHTML = `
    <div class="thumb"><img alt="" src="/gallery/placeholder.svg"><div class="spinner"></div></div>
    <div class="text"><h2></h2><p class="detail"></p><p class="state"></p>
      <label class="pick"><input type="checkbox" class="pick-box"> In the photobook</label></div>`;
  item.querySelector("h2").textContent = row.name;
  item.querySelector(".detail").textContent = row.detail || "";
  item.querySelector("img").alt = row.name;
  item.querySelector(".pick-box").addEventListener("change", updateSelection);
  state.states[row.id] = "new";
  if (row.failed) applyRow({ row: row.id, state: "failed", reason: row.failed });
  return item;
}

function applyRow(message) {
  const item = document.querySelector(`.row[data-row="${message.row}"]`);
  if (!item) return;
  state.states[message.row] = message.state;
  item.classList.remove("new", "downloaded", "filtered", "failed", "pending");
  item.classList.add(message.state);
  const img = item.querySelector("img");
  const label = item.querySelector(".state");
  switch (message.state) {
    case "downloaded":   // the original, at once; the sepia version follows
      item.classList.add("pending");
      img.src = message.image;
      label.textContent = "Filtering…";
      break;
    case "filtered":
      img.src = message.image;
      label.textContent = "Sepia";
      break;
    case "failed":
      img.src = "/gallery/failure.svg";
      label.textContent = "Failed to load";
      label.title = message.reason || "";
      break;
    default:
      img.src = "/gallery/placeholder.svg";
      label.textContent = "";
      markPending();
  }
}

// Rows that are visible and not done show the activity indicator.
function markPending() {
  for (const item of document.querySelectorAll(".row")) {
    const s = state.states[item.dataset.row];
    item.classList.toggle("pending", state.visible.has(Number(item.dataset.row)) && (s === "new" || s === "downloaded"));
  }
}

function watchVisibility() {
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const row = Number(entry.target.dataset.row);
      if (entry.isIntersecting) state.visible.add(row); else state.visible.delete(row);
    }
    markPending();
    if (!state.scrolling) report();
  });
  for (const item of document.querySelectorAll(".row")) observer.observe(item);
}

// While the list scrolls, the server holds new work; when it stops, work
// for rows that left the screen is cancelled and visible rows start.
function watchScrolling() {
  let timer = null;
  window.addEventListener("scroll", () => {
    if (!state.scrolling) {
      state.scrolling = true;
      report();
    }
    clearTimeout(timer);
    timer = setTimeout(() => { state.scrolling = false; report(); }, 150);
  }, { passive: true });
}

let reporting = Promise.resolve();
function report() {
  const body = JSON.stringify({ rows: [...state.visible].sort((a, b) => a - b), scrolling: state.scrolling });
  // In order: a stop must never overtake the start it follows.
  reporting = reporting.then(() => fetch(`/api/viewers/${state.viewer}/visible`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body,
  })).catch(() => {});
}

function showStatus(s) {
  document.getElementById("status").textContent =
    `Downloads: ${s.downloadsRunning} running, ${s.downloadsWaiting} waiting · ` +
    `Filters: ${s.filtrationsRunning} running, ${s.filtrationsWaiting} waiting · ` +
    `Cancelled: ${s.downloadsCancelled + s.filtrationsCancelled} · ` +
    `Cache hits: ${s.memoryHits + s.diskHits}`;
}

// The photobook: the selected rows, bound into a PDF by the server.
function selectedRows() {
  return [...document.querySelectorAll(".row")]
    .filter((item) => item.querySelector(".pick-box").checked)
    .map((item) => Number(item.dataset.row));
}

function updateSelection() {
  const count = selectedRows().length;
  document.getElementById("make-book").disabled = count === 0 || state.book !== null;
  document.getElementById("book-selection").textContent =
    count === 0 ? "Select photos for a photobook" : `${count} photo${count === 1 ? "" : "s"} selected`;
}

async function makeBook() {
  const rows = selectedRows();
  if (rows.length === 0) return;
  const link = document.getElementById("book-link");
  const progress = document.getElementById("book-progress");
  const cancel = document.getElementById("cancel-book");
  const label = document.getElementById("book-state");
  link.hidden = true;
  const answer = await fetch("/api/books", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ rows }),
  });
  if (!answer.ok) { label.textContent = await answer.text(); return; }
  const { id } = await answer.json();
  state.book = id;
  updateSelection();
  progress.hidden = false; progress.max = rows.length; progress.value = 0;
  cancel.hidden = false;
  label.textContent = "Preparing pages…";
  const events = new EventSource(`/api/books/${id}/events`);
  events.addEventListener("book", (e) => {
    const s = JSON.parse(e.data);
    progress.max = s.total;
    progress.value = s.state === "writing" ? s.written : s.prepared;
    label.textContent = { preparing: "Preparing pages…", writing: "Binding…", done: "Done", cancelled: "Cancelled", failed: s.error || "Failed" }[s.state];
    if (["done", "cancelled", "failed"].includes(s.state)) {
      events.close();
      state.book = null;
      cancel.hidden = true;
      progress.hidden = s.state !== "done";
      if (s.state === "done") { link.href = `/api/books/${id}/pdf`; link.hidden = false; }
      updateSelection();
    }
  });
}

document.getElementById("make-book").addEventListener("click", makeBook);
document.getElementById("cancel-book").addEventListener("click", () => {
  if (state.book) fetch(`/api/books/${state.book}`, { method: "DELETE" });
});
state.book = null;

// For tests and the curious: what the page knows.
window.darkroom = { state };
start();
