// The replay viewer: the server turns a replay record into frames for one view (a seat or
// the spectator); this page steps through them.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {record: null, given: null, frames: [], at: 0};

async function post(path, body) {
  const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body});
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

async function get(path) {
  const response = await fetch(path);
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

// Ask the server for the frames of the loaded replay in the chosen view.
async function load() {
  showError($("error"), "");
  const view = $("view").value;
  try {
    let data;
    if (state.given !== null) data = await get(`/api/replays/${state.given}?view=${view}`);
    else if (state.record !== null) data = await post(`/api/replays/view?view=${view}`, state.record);
    else return;
    state.frames = data.frames;
    $("players").textContent = playersText(data.players);
    $("jump").max = String(data.frames.length - 1);
    $("jump-to").max = String(data.frames.length - 1);
    $("viewer").hidden = false;
    show(Math.min(state.at, data.frames.length - 1));
  } catch (err) {
    $("viewer").hidden = true;
    showError($("error"), err.message);
  }
}

// Who played each seat, as the file records it ("you": the person who played it in the page or the terminal).
function playersText(players) {
  if (!players) return "Players: not recorded in this file";
  return "Players: " + players.map((name, seat) => `seat ${seat} ${name}`).join(" · ");
}

function show(i) {
  const n = state.frames.length - 1;
  state.at = Math.max(0, Math.min(n, i));
  const frame = state.frames[state.at];
  const viewer = $("view").value === "spectator" ? null : Number($("view").value);
  $("jump").value = String(state.at);
  $("jump-to").value = String(state.at);
  $("position").textContent = `move ${state.at} of ${n}`;
  $("action").textContent = state.at === 0 ? "the deal" : `move ${state.at}: ${frame.action}`;
  $("events").replaceChildren(...frame.events.map((line) => el("li", {}, line)));
  $("round").replaceChildren(roundNode(frame, viewer));
  $("table").replaceChildren(tableNode(frame, viewer));
  $("trick").textContent = trickText(frame);
  $("seat-hand").hidden = viewer === null;
  if (viewer !== null) {
    $("viewer-seat").textContent = String(viewer);
    $("hand").replaceChildren(handNode(frame.hand));
    $("own-role").textContent = `seat ${viewer}: ${frame.own_role}`;
  }
  $("result").replaceChildren(...(frame.result ? [el("h3", {}, "Result"), resultNode(frame.result, viewer)] : []));
}

async function given() {
  try {
    const data = await get("/api/replays");
    if (!data.replays.length) return;
    $("given").append(el("option", {value: ""}, "(choose)"));
    data.replays.forEach((name, i) => $("given").append(el("option", {value: String(i)}, name)));
    $("given-label").hidden = false;
  } catch (err) {
    showError($("error"), err.message);
  }
}

// The file goes to the server as the text it is (never parsed here: JS numbers would round its 63-bit seed).
$("file").addEventListener("change", async () => {
  const file = $("file").files[0];
  if (!file) return;
  Object.assign(state, {record: await file.text(), given: null, at: 0});
  load();
});
$("given").addEventListener("change", () => {
  if ($("given").value === "") return;
  Object.assign(state, {given: Number($("given").value), record: null, at: 0});
  load();
});
$("view").addEventListener("change", load);
$("first").addEventListener("click", () => show(0));
$("back").addEventListener("click", () => show(state.at - 1));
$("forward").addEventListener("click", () => show(state.at + 1));
$("last").addEventListener("click", () => show(state.frames.length - 1));
$("jump").addEventListener("input", () => show(Number($("jump").value)));
$("jump-to").addEventListener("change", () => show(Number($("jump-to").value)));
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" || !state.frames.length) return;
  if (event.key === "ArrowRight") show(state.at + 1);
  if (event.key === "ArrowLeft") show(state.at - 1);
});
given();
if (location.hash === "#last" && localStorage.getItem("baohuang-last-replay")) {
  state.record = localStorage.getItem("baohuang-last-replay");
  load();
}
