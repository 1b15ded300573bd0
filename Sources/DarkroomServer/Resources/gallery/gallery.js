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
    <div class="text"><h2></h2><p class="detail"></p><p class="state"></p></div>`;
  item.querySelector("h2").textContent = row.name;
  item.querySelector(".detail").textContent = row.detail || "";
  item.querySelector("img").alt = row.name;
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

// For tests and the curious: what the page knows.
window.darkroom = { state };
start();
