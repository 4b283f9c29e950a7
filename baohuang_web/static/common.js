// Shared by the game page and the replay viewer: drawing a table view sent by the server.
// The server decides what a viewer may see; these functions only draw what they are given.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// One card: "8", "T", "SJ", "BJ", "SP", or with a suit in front ("♥K").
function cardNode(card) {
  const red = /[♦♥]/.test(card) || card === "BJ" || card === "SP";
  const joker = card === "SJ" || card === "BJ" || card === "SP";
  return el("span", {class: "card" + (red ? " red" : "") + (joker ? " joker" : "")}, card);
}

function handNode(cards) {
  const box = el("div", {class: "cards"});
  for (const c of cards) box.append(cardNode(c));
  if (!cards.length) box.append(el("span", {class: "muted"}, "no cards left"));
  return box;
}

// The table: one row per seat with role (as the viewer knows it), cards left and status.
// The status column comes third so that it stays in sight on a narrow (phone) screen.
function tableNode(view, mySeat) {
  const showHands = view.seats.some((s) => s.hand !== undefined);
  const head = el("tr", {}, el("th", {}, "seat"), el("th", {}, "player"), el("th", {}, "status"),
    el("th", {}, "role"), el("th", {}, "cards"), showHands ? el("th", {}, "hand") : null);
  const table = el("table", {class: "seats"}, head);
  for (const s of view.seats) {
    const row = el("tr", {class: (s.seat === mySeat ? "me " : "") + (s.status === "to act" ? "acting" : ""),
      "data-seat": String(s.seat)},
      el("td", {}, String(s.seat)), el("td", {class: "name"}, s.name),
      el("td", {class: "status"}, [s.status, ...s.marks].filter(Boolean).join("; ")),
      el("td", {class: "role"}, s.role), el("td", {class: "num"}, String(s.cards_left)),
      showHands ? el("td", {class: "handtext"}, s.hand) : null);
    table.append(row);
  }
  return table;
}

// Where each seat sits around the round table, counted from the bottom seat in the
// direction of play (seen from above, counterclockwise goes bottom, right, top, left).
const AROUND = {
  counterclockwise: ["bottom", "right", "top-right", "top-left", "left"],
  clockwise: ["bottom", "left", "top-left", "top-right", "right"],
};

// The table as card sites draw it: five seats around it, the viewer's at the bottom (seat 0
// for a spectator), each with its last play of this trick in front of it.
function roundNode(view, mySeat) {
  const bottom = typeof mySeat === "number" ? mySeat : 0;
  const around = AROUND[view.direction] || AROUND.counterclockwise;
  const box = el("div", {class: "round"});
  for (const s of view.seats) box.append(seatBox(s, around[(s.seat - bottom + 5) % 5], s.seat === mySeat));
  box.append(el("div", {class: "centre trick"}, trickText(view)));
  return box;
}

// A player's name short enough for a seat box: a checkpoint "dmc:agents/pretrained/dmc_jj.pt"
// as "dmc:dmc_jj" (the list beside the round table keeps the whole name).
function shortName(name) {
  const colon = name.indexOf(":");
  if (colon < 0) return name;
  const file = name.slice(colon + 1).split("/").pop().replace(/\.pt$/, "");
  return `${name.slice(0, colon)}:${file}`;
}

function seatBox(s, where, mine) {
  const acting = s.status === "to act";
  const title = `seat ${s.seat}` + (mine ? " (you)" : s.name.startsWith("seat ") ? "" : ` · ${shortName(s.name)}`);
  const box = el("div", {class: `seat-box ${where}` + (mine ? " me" : "") + (acting ? " acting" : ""),
    "data-seat": String(s.seat), title: s.name},
    el("div", {class: "who"}, title),
    el("div", {class: "about muted"}, `${s.role} · ${s.cards_left} cards` + (s.status && !acting ? ` · ${s.status}` : "")),
    acting ? el("div", {class: "to-act"}, "▶ to act") : null,
    el("div", {class: "last-play"}, lastPlayNode(s.last_play)));
  return box;
}

function lastPlayNode(play) {
  if (!play) return el("span", {class: "muted"}, "—");
  if (!play.cards.length) return el("span", {class: "pass-word"}, play.label);
  const cards = el("div", {class: "cards small", title: play.label});
  for (const c of play.cards) cards.append(cardNode(c));
  return cards;
}

function trickText(view) {
  if (view.trick) return `to beat: ${view.trick.play} by seat ${view.trick.by}`;
  if (view.over) return "the deal is over";
  if (view.phase === "play") return `seat ${view.to_act} leads a new trick`;
  return view.step ? `role phase: ${view.step}` : "";
}

// The result: who won, the score table, why the scores are what they are, and the summary.
function resultNode(result, mySeat) {
  const box = el("div", {class: "result"});
  if (result.winner) box.append(el("p", {class: "winner"}, result.winner));
  const table = el("table", {class: "scores"},
    el("tr", {}, el("th", {}, "place"), el("th", {}, "seat"), el("th", {}, "role"), el("th", {}, "score")));
  const byPlace = [...result.rows].sort((a, b) => (a.place || 9) - (b.place || 9) || a.seat - b.seat);
  for (const r of byPlace) {
    const who = String(r.seat) + (r.seat === mySeat ? " (you)" : "");
    table.append(el("tr", {class: r.seat === mySeat ? "me" : ""},
      el("td", {}, r.place ? String(r.place) : "-"), el("td", {}, who), el("td", {}, r.role),
      el("td", {class: "num"}, (r.score > 0 ? "+" : "") + r.score)));
  }
  box.append(table);
  const why = el("ul", {class: "score-lines"});
  for (const line of result.score_lines || []) why.append(el("li", {}, line));
  if (why.children.length) box.append(el("h4", {}, "How the scores come about"), why);
  const lines = el("ul", {class: "lines"});
  for (const line of result.lines) lines.append(el("li", {}, line));
  box.append(lines);
  return box;
}

function showError(node, message) {
  node.textContent = message || "";
  node.hidden = !message;
}
