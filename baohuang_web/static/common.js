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
function tableNode(view, mySeat) {
  const showHands = view.seats.some((s) => s.hand !== undefined);
  const head = el("tr", {}, el("th", {}, "seat"), el("th", {}, "player"), el("th", {}, "role"),
    el("th", {}, "cards"), el("th", {}, "status"), showHands ? el("th", {}, "hand") : null);
  const table = el("table", {class: "seats"}, head);
  for (const s of view.seats) {
    const row = el("tr", {class: (s.seat === mySeat ? "me " : "") + (s.status === "to act" ? "acting" : ""),
      "data-seat": String(s.seat)},
      el("td", {}, String(s.seat)), el("td", {}, s.name),
      el("td", {class: "role"}, s.role), el("td", {class: "num"}, String(s.cards_left)),
      el("td", {}, [s.status, ...s.marks].filter(Boolean).join("; ")),
      showHands ? el("td", {class: "handtext"}, s.hand) : null);
    table.append(row);
  }
  return table;
}

function trickText(view) {
  if (view.trick) return `to beat: ${view.trick.play} by seat ${view.trick.by}`;
  if (view.over) return "the deal is over";
  if (view.phase === "play") return `seat ${view.to_act} leads a new trick`;
  return view.step ? `role phase: ${view.step}` : "";
}

// The result: the score table and the summary lines.
function resultNode(result, mySeat) {
  const box = el("div", {class: "result"});
  const table = el("table", {class: "scores"},
    el("tr", {}, el("th", {}, "seat"), el("th", {}, "place"), el("th", {}, "role"), el("th", {}, "score")));
  for (const r of result.rows) {
    table.append(el("tr", {class: r.seat === mySeat ? "me" : ""}, el("td", {}, String(r.seat)),
      el("td", {}, r.place ? String(r.place) : "-"), el("td", {}, r.role),
      el("td", {class: "num"}, (r.score > 0 ? "+" : "") + r.score)));
  }
  box.append(table);
  const lines = el("ul", {class: "lines"});
  for (const line of result.lines) lines.append(el("li", {}, line));
  box.append(lines);
  return box;
}

function showError(node, message) {
  node.textContent = message || "";
  node.hidden = !message;
}
