// The game page: set up a game, then show the seat's view and send its moves. The server
// owns the game; this page keeps only the game id, the player token and the log it has shown.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {id: null, token: null, seat: 0, shown: 0, timer: null, options: null, busy: false, draws: 0};

async function api(method, path, body) {
  const headers = {"Content-Type": "application/json"};
  if (state.token) headers["X-Player-Token"] = state.token;
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function fillSetup(options) {
  state.options = options;
  for (const p of options.presets) $("preset").append(el("option", {value: p}, p));
  $("preset").value = options.preset;
  for (let s = 0; s < 5; s++) $("seat").append(el("option", {value: String(s)}, `seat ${s}`));
  $("seat").addEventListener("change", drawOpponentChoices);
  drawOpponentChoices();
}

function drawOpponentChoices() {
  const box = $("opponents");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  const seat = Number($("seat").value);
  let i = 0;
  for (let s = 0; s < 5; s++) {
    if (s === seat) continue;
    const select = el("select", {id: `opponent-${i}`});
    for (const spec of state.options.opponents) select.append(el("option", {value: spec}, spec));
    if (old[i]) select.value = old[i];
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
    Object.assign(state, {id: data.game_id, token: data.token, seat: data.view.seat, shown: 0});
    $("log").replaceChildren();
    $("result").replaceChildren();
    $("hints").replaceChildren();
    $("setup").hidden = true;
    $("game").hidden = false;
    $("after").hidden = true;
    $("hint-button").hidden = !state.options.hints;
    draw(data.view);
  } catch (err) {
    showError($("setup-error"), err.message);
  }
}

function draw(view) {
  state.draws += 1;
  $("game").dataset.draws = String(state.draws);  // tells a watcher (the browser test) that the view changed
  state.shown += view.events.length;
  for (const line of view.events) $("log").append(el("li", {}, line));
  $("status").textContent = `${view.preset} rules, play goes ${view.direction}; phase: ${view.phase}` +
    (view.over ? "" : `; to act: seat ${view.to_act}` + (view.your_turn ? " (you)" : ""));
  $("table").replaceChildren(tableNode(view, view.seat));
  $("trick").textContent = trickText(view);
  $("hand").replaceChildren(handNode(view.hand));
  $("hand-text").textContent = view.hand_text;
  $("me").textContent = String(view.seat);
  $("own-role").textContent = view.own_role;
  $("turn").hidden = !view.your_turn;
  $("hints").replaceChildren();
  if (view.your_turn) drawMoves(view);
  if (view.over) {
    $("result").replaceChildren(el("h3", {}, "Result"), resultNode(view.result, view.seat));
    $("after").hidden = false;
    loadReplay();
  } else if (!view.your_turn) {
    scheduleBots();
  }
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
}

async function send(body) {
  if (state.busy) return;
  state.busy = true;
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
      const value = m.value === null ? "" : ` (${data.value_name}: ${m.value})`;
      list.append(el("li", {}, m.label + value));
    }
    const title = data.kind === "values" ? `${data.agent}'s top moves from your seat's view:` :
      `${data.agent} would play:`;
    $("hints").replaceChildren(el("p", {}, title), list);
  } catch (err) {
    $("hints").replaceChildren(el("p", {class: "error"}, err.message));
  }
}

async function loadReplay() {
  try {
    const record = await api("GET", `/api/games/${state.id}/replay`);
    const text = JSON.stringify(record);
    $("save-replay").href = URL.createObjectURL(new Blob([text], {type: "application/json"}));
    localStorage.setItem("baohuang-last-replay", text);
  } catch (err) {
    showError($("error"), err.message);
  }
}

function newGame() {
  clearTimeout(state.timer);
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
