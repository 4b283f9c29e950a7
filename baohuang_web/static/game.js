// The game page: set up a game, then show the seat's view and send its moves. The server
// owns the game; this page keeps only the game id, the player token and the log it has shown.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {id: null, token: null, seat: 0, shown: 0, timer: null, forced: null, options: null, busy: false,
  draws: 0, preset: null};
// How long an only legal move waits, visibly, before the page plays it.
const FORCED_DELAY_MS = 1000;

async function api(method, path, body) {
  const headers = {"Content-Type": "application/json"};
  if (state.token) headers["X-Player-Token"] = state.token;
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

// The server's answer as text, untouched. A replay must never pass through JSON.parse: its
// deal seed is a 63-bit integer and JS numbers keep 53 bits, so a parsed-and-rewritten
// replay names another deal and no longer replays.
async function apiText(path) {
  const response = await fetch(path, {headers: {"X-Player-Token": state.token}});
  const text = await response.text();
  if (!response.ok) {
    let message = `the server answered ${response.status}`;
    try { message = JSON.parse(text).error || message; } catch (err) { /* not JSON: keep the status */ }
    throw new Error(message);
  }
  return text;
}

// Hints come from one agent, which may not play every preset; an older server sends no
// list, and then hints are offered in every preset.
function hintsFor(preset) {
  const options = state.options;
  if (!options.hints) return false;
  return !Array.isArray(options.hint_presets) || options.hint_presets.includes(preset);
}

// The offered opponents that play `preset` and the one preselected there (the server's
// per-preset lists: a checkpoint plays only its own rules); an older server sends no such
// lists, and then every opponent is offered, the first preselected.
function opponentsFor(preset) {
  const options = state.options;
  const offered = options.preset_opponents && options.preset_opponents[preset];
  return offered || {opponents: options.opponents, default: options.opponents[0]};
}

function fillSetup(options) {
  state.options = options;
  for (const p of options.presets) $("preset").append(el("option", {value: p}, p));
  $("preset").value = options.preset;
  for (let s = 0; s < 5; s++) $("seat").append(el("option", {value: String(s)}, `seat ${s}`));
  $("seat").addEventListener("change", () => drawOpponentChoices(true));
  $("preset").addEventListener("change", () => drawOpponentChoices(false));
  drawOpponentChoices(false);
}

// A selector per other seat with the opponents that play the chosen preset. A new seat keeps
// the choices made (`keep`); new rules preselect their default opponent in every seat.
function drawOpponentChoices(keep) {
  const box = $("opponents");
  const old = keep ? [...box.querySelectorAll("select")].map((s) => s.value) : [];
  box.replaceChildren();
  const preset = $("preset").value;
  const offered = opponentsFor(preset);
  $("start").disabled = offered.opponents.length === 0;
  if (!offered.opponents.length) {
    box.append(el("p", {class: "muted"}, `No opponent offered by this server plays ${preset}.`));
    return;
  }
  const seat = Number($("seat").value);
  let i = 0;
  for (let s = 0; s < 5; s++) {
    if (s === seat) continue;
    const select = el("select", {id: `opponent-${i}`});
    for (const spec of offered.opponents) select.append(el("option", {value: spec}, spec));
    select.value = offered.opponents.includes(old[i]) ? old[i] : offered.default;
    box.append(el("label", {}, `seat ${s} `, select));
    i++;
  }
}

async function start() {
  showError($("setup-error"), "");
  const opponents = [...$("opponents").querySelectorAll("select")].map((s) => s.value);
  try {
    state.token = null;
    const data = await api("POST", "/api/games", {preset: $("preset").value, seat: Number($("seat").value), opponents});
    Object.assign(state, {id: data.game_id, token: data.token, seat: data.view.seat, shown: 0,
      preset: data.view.preset});
    $("log").replaceChildren();
    $("result").replaceChildren();
    $("hints").replaceChildren();
    $("setup").hidden = true;
    $("game").hidden = false;
    $("after").hidden = true;
    const hints = hintsFor(state.preset);
    $("hint-button").hidden = !hints;
    $("no-hints").hidden = hints || !state.options.hints;
    $("no-hints").textContent = `No hints in ${state.preset}: the hint agent (${state.options.hints}) ` +
      `cannot play these rules.`;
    draw(data.view);
  } catch (err) {
    showError($("setup-error"), err.message);
  }
}

function draw(view) {
  state.draws += 1;
  $("game").dataset.draws = String(state.draws);  // tells a watcher (the browser test) that the view changed
  state.shown += view.events.length;
  appendLog(view.events);
  $("status").textContent = `${view.preset} rules, play goes ${view.direction}; phase: ${view.phase}` +
    (view.over ? "" : `; to act: seat ${view.to_act}` + (view.your_turn ? " (you)" : ""));
  $("round").replaceChildren(roundNode(view, view.seat));
  $("table").replaceChildren(tableNode(view, view.seat));
  $("trick").textContent = trickText(view);
  $("hand").replaceChildren(handNode(view.hand));
  $("hand-text").textContent = view.hand_text;
  $("me").textContent = String(view.seat);
  $("own-role").textContent = view.own_role;
  $("turn").hidden = !view.your_turn;
  $("hints").replaceChildren();
  stopForced();
  if (view.your_turn) drawMoves(view);
  if (view.over) {
    $("result").replaceChildren(el("h3", {}, "Result"), resultNode(view.result, view.seat));
    $("after").hidden = false;
    loadReplay();
  } else if (!view.your_turn) {
    scheduleBots();
  }
}

// "What happened" follows the newest line, unless the reader has scrolled up to read.
function appendLog(lines) {
  const log = $("log");
  const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  for (const line of lines) log.append(el("li", {}, line));
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function drawMoves(view) {
  $("turn-hint").textContent = view.hint_text;
  const box = $("moves");
  box.replaceChildren();
  for (const move of view.moves) {
    const button = el("button", {class: `move ${move.kind}`, "data-action": String(move.id),
      title: move.help || move.label, onclick: () => send({action: move.id})}, move.label);
    box.append(button);
  }
  if (view.moves.length === 1 && $("auto-forced").checked) startForced(view.moves[0]);
}

// An only legal move (often a pass) needs no thought: say so, and play it after a short
// delay that the player can stop (the button stays, to play it by hand).
function startForced(move) {
  const stop = el("button", {id: "stop-forced", type: "button", onclick: stopForced}, "stop");
  $("forced").replaceChildren(`Only move: ${move.label} — playing it in ${FORCED_DELAY_MS / 1000} s `, stop);
  $("forced").hidden = false;
  state.forced = setTimeout(() => { state.forced = null; send({action: move.id}); }, FORCED_DELAY_MS);
}

function stopForced() {
  clearTimeout(state.forced);
  state.forced = null;
  $("forced").hidden = true;
}

async function send(body) {
  if (state.busy) return;
  state.busy = true;
  stopForced();
  showError($("error"), "");
  try {
    draw(await api("POST", `/api/games/${state.id}/action?since=${state.shown}`, body));
    $("typed").value = "";
  } catch (err) {
    showError($("error"), err.message);
  } finally {
    state.busy = false;
  }
}

function scheduleBots() {
  clearTimeout(state.timer);
  const delay = Number($("speed").value);
  const gameId = state.id;
  state.timer = setTimeout(async () => {
    if (gameId !== state.id) return;
    try {
      const steps = delay === 0 ? 500 : 1;
      draw(await api("POST", `/api/games/${gameId}/advance?since=${state.shown}`, {steps}));
    } catch (err) {
      showError($("error"), err.message);
    }
  }, delay);
}

async function showHints() {
  try {
    const data = await api("GET", `/api/games/${state.id}/hints`);
    const list = el("ol", {class: "hint-list"});
    for (const m of data.moves) {
      // a search's result in words ("the agent's first choice: wins 62% of 8 imagined deals", the others
      // against it), else the agent's figure
      const value = m.text ? ` — ${m.text}` : m.value === null ? "" : ` (${data.value_name}: ${m.value})`;
      list.append(el("li", {}, m.label + value));
    }
    const titles = {values: `${data.agent}'s top moves from your seat's view:`,
      search: `${data.agent}'s top moves: ${data.value_name}:`, forced: "Your only move:"};
    $("hints").replaceChildren(el("p", {}, titles[data.kind] || `${data.agent} would play:`), list);
  } catch (err) {
    $("hints").replaceChildren(el("p", {class: "error"}, err.message));
  }
}

// The saved replay's file name: the preset and the local time, e.g. baohuang-jj-20261204-0712.json.
function replayFileName(preset, when) {
  const two = (n) => String(n).padStart(2, "0");
  const day = `${when.getFullYear()}${two(when.getMonth() + 1)}${two(when.getDate())}`;
  return `baohuang-${preset}-${day}-${two(when.getHours())}${two(when.getMinutes())}.json`;
}

async function loadReplay() {
  try {
    const text = await apiText(`/api/games/${state.id}/replay`);  // as sent: see apiText
    $("save-replay").href = URL.createObjectURL(new Blob([text], {type: "application/json"}));
    $("save-replay").download = replayFileName(state.preset, new Date());
    localStorage.setItem("baohuang-last-replay", text);
  } catch (err) {
    showError($("error"), err.message);
  }
}

function newGame() {
  clearTimeout(state.timer);
  stopForced();
  Object.assign(state, {id: null, token: null, shown: 0});
  $("game").hidden = true;
  $("setup").hidden = false;
}

$("start").addEventListener("click", start);
$("new-game").addEventListener("click", newGame);
$("hint-button").addEventListener("click", showHints);
$("typed-form").addEventListener("submit", (event) => {
  event.preventDefault();
  send({move: $("typed").value});
});
api("GET", "/api/options").then(fillSetup, (err) => showError($("setup-error"), err.message));
