// slagwerk's page: play the bots, watch recorded matches. Plain JavaScript, no
// libraries, no network access beyond this server (docs/web.md).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (selector) => document.querySelector(selector);

const page = {
  info: null,        // GET /v1/info: games, agents, parameter sets
  mode: "loading",   // "loading", "setup", "play", "watch-open", "watch"
  match: null,       // the match as the server sent it (the human seat's view only)
  polling: 0,        // the running poll's number (a newer one stops older ones)
  selected: [],      // Kozel: the cards selected for a lead, beat or discard
  dealsSeen: null,   // finished deals the page has drawn (a new one is announced)
  dealOver: null,    // the announcement of the deal that just ended, until the next move
  watch: null,       // the watched record's summary
  frame: null,       // the watched moment: every seat's view
  cardOrder: null,   // Aluette: strength class of each card (1 = strongest), from the server
};

// ------------------------------------------------------------------ server

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    throw new Error(`${path}: the server's answer is not JSON (${response.status})`);
  }
  if (!response.ok) {
    throw new Error(data && data.error ? data.error : `${path}: HTTP ${response.status}`);
  }
  return data;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message || "";
  box.hidden = !message;
}

// ------------------------------------------------------------------- cards

// The words for each deck family's suit and rank letters, from the server's hello (one
// source: slagwerk.engine.cards), filled in by learnCardNames when the page starts.
const SUIT_NAMES = {};
const RANK_NAMES = {};

function learnCardNames(info) {
  for (const facts of Object.values(info.games)) {
    const deck = facts.deck || {};
    if (deck.suit_names) SUIT_NAMES[deck.family] = deck.suit_names;
    if (deck.rank_names) RANK_NAMES[deck.family] = deck.rank_names;
  }
}

// The game's facts come from the server (GET /v1/info), never from a list of games here;
// what a seat sees comes from its view, whose fields say how to draw it.
function factsOf(game) {
  return (page.info && page.info.games[game]) || {};
}

// A view that keeps each seat's cards in named slots (table, forehead, hidden: Koetsieren).
const hasSlots = (view) => view.hands !== undefined;
// A view whose tricks are plays of several cards each, listed as they were played (Kozel).
const hasMultiCardPlays = (view) => view.tricks !== undefined;

function deckOf(game) {
  return (factsOf(game).deck || {}).family || "french";
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

// Suit symbols drawn in a box from -8 to 8 (no fonts, no images).
function suitSymbol(deck, suit) {
  const g = svg("g", { class: `suit suit-${deck}-${suit}` });
  if (deck === "french") {
    if (suit === "h") {
      g.append(svg("path", { d: "M0,7 C-9,0 -9,-7 -4.5,-7.5 C-2,-7.7 0,-5.5 0,-4 C0,-5.5 2,-7.7 4.5,-7.5 C9,-7 9,0 0,7 Z", fill: "#c62828" }));
    } else if (suit === "d") {
      g.append(svg("path", { d: "M0,-8.5 L6.5,0 L0,8.5 L-6.5,0 Z", fill: "#c62828" }));
    } else if (suit === "s") {
      g.append(svg("path", { d: "M0,-8 C-9,-1 -9,5 -4.5,5 C-2.5,5 -1.2,4 -0.6,3 L-2.5,8 L2.5,8 L0.6,3 C1.2,4 2.5,5 4.5,5 C9,5 9,-1 0,-8 Z", fill: "#1b1b1b" }));
    } else {
      for (const [x, y] of [[0, -4.3], [-4.2, 1.2], [4.2, 1.2]]) g.append(svg("circle", { cx: x, cy: y, r: 3.5, fill: "#1b1b1b" }));
      g.append(svg("path", { d: "M-0.9,0 L-2.6,8 L2.6,8 L0.9,0 Z", fill: "#1b1b1b" }));
    }
    return g;
  }
  if (suit === "o") {          // oros: a gold coin
    g.append(svg("circle", { cx: 0, cy: 0, r: 7.5, fill: "#e0a800", stroke: "#8a6500", "stroke-width": 1.2 }));
    g.append(svg("circle", { cx: 0, cy: 0, r: 4, fill: "none", stroke: "#8a6500", "stroke-width": 1 }));
    g.append(svg("circle", { cx: 0, cy: 0, r: 1.2, fill: "#8a6500" }));
  } else if (suit === "c") {   // copas: a goblet
    g.append(svg("path", { d: "M-6.5,-7.5 L6.5,-7.5 C6.5,-1.5 3.5,0.8 1.1,1.6 L1.1,5 L4.5,7.5 L-4.5,7.5 L-1.1,5 L-1.1,1.6 C-3.5,0.8 -6.5,-1.5 -6.5,-7.5 Z", fill: "#c62828", stroke: "#7a1010", "stroke-width": 0.8 }));
  } else if (suit === "e") {   // espadas: a sword
    g.append(svg("path", { d: "M0,-8.5 L1.3,-6.5 L1.3,3 L-1.3,3 L-1.3,-6.5 Z", fill: "#3d6fb6", stroke: "#1f3f70", "stroke-width": 0.6 }));
    g.append(svg("path", { d: "M-5,3 L5,3 L5,4.6 L-5,4.6 Z", fill: "#1f3f70" }));
    g.append(svg("path", { d: "M-0.9,4.6 L0.9,4.6 L0.9,7.5 L-0.9,7.5 Z", fill: "#7a4a1d" }));
    g.append(svg("circle", { cx: 0, cy: 8.2, r: 1.1, fill: "#1f3f70" }));
  } else {                     // bastos: a knotty club
    g.append(svg("path", { d: "M-2.5,-8.5 C1,-8.8 3.6,-6.5 3,-3 L1.7,7.2 C1.5,8.6 -1.5,8.6 -1.7,7.2 L-3.6,-3 C-4.2,-6 -4,-8.4 -2.5,-8.5 Z", fill: "#4d8a2c", stroke: "#2d5419", "stroke-width": 0.8 }));
    for (const [x, y] of [[-2.4, -3.5], [2, -1], [-1.4, 2.5]]) g.append(svg("circle", { cx: x, cy: y, r: 0.9, fill: "#2d5419" }));
  }
  return g;
}

// The back's diagonal lattice inside its frame (6..54 x 6..78), as one path.
let lattice = null;
function backLattice() {
  if (lattice) return lattice;
  const [x0, x1, y0, y1] = [6, 54, 6, 78];
  const parts = [];
  for (let c = x0 - y1 + 4; c < x1 - y0; c += 8) {   // lines x - y = c
    const from = Math.max(x0, y0 + c);
    const to = Math.min(x1, y1 + c);
    parts.push(`M${from},${from - c}L${to},${to - c}`);
  }
  for (let d = x0 + y0 + 4; d < x1 + y1; d += 8) {   // lines x + y = d
    const from = Math.max(x0, d - y1);
    const to = Math.min(x1, d - y0);
    parts.push(`M${from},${d - from}L${to},${d - to}`);
  }
  lattice = parts.join("");
  return lattice;
}

function rankLabel(deck, rank) {
  return deck === "french" && rank === "T" ? "10" : rank;
}

// A card as an SVG picture; "??" (or null) is a card's back.
function cardPicture(game, name, extraClass) {
  const deck = deckOf(game);
  const root = svg("svg", { viewBox: "0 0 60 84", class: `card ${extraClass || ""}`.trim(), role: "img" });
  if (!name || name === "??") {
    root.setAttribute("aria-label", "a card face down");
    root.classList.add("back");
    root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#24477e", stroke: "#10264a", "stroke-width": 1.5 }));
    root.append(svg("path", { d: backLattice(), stroke: "#3b66ad", "stroke-width": 2, fill: "none" }));
    root.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, fill: "none", stroke: "#a9c1ea", "stroke-width": 1.2 }));
    return root;
  }
  const rank = name[0];
  const suit = name[1];
  const suitName = (SUIT_NAMES[deck] || {})[suit] || suit;
  const rankName = (RANK_NAMES[deck] || {})[rank] || rankLabel(deck, rank);
  root.setAttribute("aria-label", `${rankName} of ${suitName}`);
  root.dataset.card = name;
  const red = deck === "french" ? (suit === "h" || suit === "d") : false;
  const ink = deck === "french" ? (red ? "#c62828" : "#1b1b1b")
    : { o: "#8a6500", c: "#a01818", e: "#1f3f70", b: "#2d5419" }[suit];
  root.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fffdf7", stroke: "#6b6b6b", "stroke-width": 1.2 }));
  if (deck === "spanish") { // the Spanish deck's frame lines
    root.append(svg("rect", { x: 4, y: 4, width: 52, height: 76, rx: 3, fill: "none", stroke: ink, "stroke-width": 0.8 }));
  }
  const label = rankLabel(deck, rank);
  const corner = svg("text", { x: 8, y: 17, "font-size": 13, "font-family": "sans-serif", "font-weight": "bold", fill: ink, "text-anchor": "middle" });
  corner.textContent = label;
  root.append(corner);
  const small = suitSymbol(deck, suit);
  small.setAttribute("transform", "translate(8,27) scale(0.55)");
  root.append(small);
  const big = suitSymbol(deck, suit);
  big.setAttribute("transform", "translate(32,47) scale(1.6)");
  root.append(big);
  const low = svg("text", { x: 52, y: 79, "font-size": 13, "font-family": "sans-serif", "font-weight": "bold", fill: ink, "text-anchor": "middle", transform: "rotate(180 52 75)" });
  low.textContent = label;
  root.append(low);
  const strength = cardStrength(name);
  if (strength) {  // Aluette: the card's class in the fixed strength order, in the free corner
    root.setAttribute("aria-label", `${root.getAttribute("aria-label")}, ${strength.text}`);
    root.append(svg("rect", { x: 41, y: 5, width: 15, height: 12, rx: 3, fill: "#efe6cf", stroke: "#8d7b4a", "stroke-width": 0.7, class: "strength" }));
    const number = svg("text", { x: 48.5, y: 14.2, "font-size": 9, "font-family": "sans-serif", fill: "#4a3f22", "text-anchor": "middle" });
    number.textContent = String(strength.rank);
    root.append(number);
  }
  return root;
}

// Aluette's strength order (docs/rules.md §4.3), as the server sends it.
function setCardOrder(order) {
  if (!order) {
    page.cardOrder = null;
    return;
  }
  const ranks = {};
  order.classes.forEach((cards, i) => { for (const card of cards) ranks[card] = i + 1; });
  page.cardOrder = { classes: order.classes, names: order.names, ranks };
}

function cardStrength(name) {
  const order = page.cardOrder;
  if (!order || !(name in order.ranks)) return null;
  const rank = order.ranks[name];
  const named = order.names[name] ? `${order.names[name]}, ` : "";
  const equal = order.classes[rank - 1].length > 1 ? ", equal to the others of its class" : "";
  return { rank, text: `${named}strength ${rank} of ${order.classes.length} (1 is strongest)${equal}` };
}

// The strength order as a legend of small cards, strongest first.
function renderCardOrder() {
  const box = $("#card-order");
  const order = page.cardOrder;
  box.hidden = !order;
  const game = page.mode === "play" ? page.match.game : page.watch.game;
  if (!order || box.dataset.game === game) return;  // drawn once, so an open legend stays open
  box.dataset.game = game;
  const rows = order.classes.map((cards, i) => el("li", { "data-rank": i + 1 },
    el("span", { class: "order-rank" }, String(i + 1)),
    el("span", { class: "play-cards" }, cards.map((c) => cardElement(game, c, null, { small: true }))),
    cards.length === 1 && order.names[cards[0]] ? el("span", { class: "order-name" }, order.names[cards[0]]) : null));
  box.replaceChildren(el("details", {},
    el("summary", {}, "strength of the cards (1 is strongest; cards in one row are equal, and a tie spoils the trick)"),
    el("ol", { class: "order-list" }, rows)));
}

// A card that may be an action: a button with data-action when it is legal now.
function cardElement(game, name, action, options) {
  const opts = options || {};
  const picture = cardPicture(game, name, opts.small ? "small" : "");
  if (!action && !opts.onclick) return el("span", { class: "card-slot" }, picture);
  const button = el("button", {
    type: "button", class: `card-button${opts.selected ? " selected" : ""}`,
    "data-action": action || null, title: cardTitle(action || name, name),
    onclick: opts.onclick || (() => play(action)),
  }, picture);
  return button;
}

function cardTitle(text, name) {
  const strength = cardStrength(name);
  return strength ? `${text}: ${strength.text}` : text;
}

function emptySlot(label) {
  return el("span", { class: "card-slot empty", title: "played" }, label || "");
}

// An emptied slot whose card everyone saw leave it (Koetsieren, docs/rules.md §2.7): the card, faded.
function playedSlot(game, slot, card) {
  return el("span", { class: "card-slot played", title: `${card} was played from ${slot}` },
    cardPicture(game, card, ""));
}

// ------------------------------------------------------------ action texts

// The cards of an action text as a seat saw it, or null for a non-play.
function actionCards(text) {
  if (text === "molodka" || text === "pass") return null;
  const colon = text.indexOf(":");
  if (colon < 0) return /^[0-9A-Z][a-z]$/.test(text) ? [text] : ["??"];
  const kind = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (kind === "trump" || kind === "bid") return null;
  if (/^[0-9]+$/.test(rest)) return Array(Number(rest)).fill("??");
  return rest.split(",");
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

// The deal's tricks from its history (as one seat saw it) and where they ended.
function tricksOf(history, trickEnds) {
  const tricks = [];
  let start = 0;
  for (const end of trickEnds) {
    const plays = history.slice(start, end.after + 1)
      .map((h) => ({ seat: h.seat, action: h.action, cards: actionCards(h.action) }))
      .filter((p) => p.cards !== null);
    tricks.push({ plays, winner: end.winner });
    start = end.after + 1;
  }
  return tricks;
}

// ------------------------------------------------------------------- table

function seatName(state, seat) {
  const name = state.players[seat];
  return `seat ${seat} · ${name}`;
}

function teamOf(state, seat) {
  return state.team_game ? seat % 2 : null;
}

// What the table shows: a match (play) or a moment of a record (watch), as
// the same shape: the perspective seat's view plus every view that is known.
function tableModel() {
  if (page.mode === "play" && page.match) {
    const m = page.match;
    const views = Array(m.players.length).fill(null);
    views[m.seat] = m.view;
    return {
      game: m.game, players: m.players, team_game: m.team_game, me: m.seat, views, view: m.view,
      history: m.view.history, trickEnds: m.trick_ends, deals: m.deals, thinking: m.thinking,
      legal: (m.view.to_move === m.seat && m.thinking === null && !m.over) ? (m.view.legal_actions || []) : [],
      barred: m.barred || [],
      faceUp: false,
    };
  }
  const f = page.frame;
  const w = page.watch;
  return {
    game: w.game, players: w.players, team_game: w.team_game, me: 0, views: f.views, view: f.views[0],
    history: f.history, trickEnds: f.trick_ends, deals: [], thinking: null, legal: [], barred: [], faceUp: true,
  };
}

function render() {
  const board = $("#board");
  board.hidden = !(page.mode === "play" || page.mode === "watch");
  $("#setup").hidden = page.mode !== "setup";
  $("#watch-open").hidden = !(page.mode === "watch-open" || page.mode === "watch");
  $("#watch-controls").hidden = page.mode !== "watch";
  if (board.hidden) return;
  const model = tableModel();
  board.dataset.game = model.game;
  setCardOrder(page.mode === "play" ? page.match.card_order : page.watch.card_order);
  renderCardOrder();
  renderStatus(model);
  renderScore(model);
  const cycle = factsOf(model.game).suit_cycle || "";
  $("#cycle").hidden = !cycle;
  if (cycle) renderCycle(cycle, deckOf(model.game));
  const table = $("#table");
  table.replaceChildren(...seatOrder(model).map((seat) => seatPanel(model, seat)), centre(model));
  table.className = `players-${model.players.length}`;
  renderActions(model);
  renderLog(model);
  renderDealOver(model);
  const over = page.mode === "play" && page.match.over;
  $("#end").hidden = !over;
  $("#leave-match").hidden = !(page.mode === "play" && !over);
  // Keyboard play: after a redraw, focus lands on the first legal action again.
  if (page.mode === "play" && model.legal.length && (!document.activeElement || document.activeElement === document.body)) {
    const first = document.querySelector("#board [data-action]");
    if (first) first.focus({ preventScroll: true });
  }
}

function seatOrder(model) {
  const n = model.players.length;
  const order = [];
  for (let i = 1; i < n; i++) order.push((model.me + i) % n);
  order.push(model.me);
  return order;
}

function renderStatus(model) {
  const status = $("#status");
  if (page.mode === "play") {
    status.textContent = page.match.status;
    status.className = page.match.over ? "over" : (model.legal.length ? "your-turn" : "waiting");
    const notice = $("#notice");
    notice.hidden = !page.match.notice;
    notice.textContent = page.match.notice || "";
    return;
  }
  const f = page.frame;
  const w = page.watch;
  const lastDeal = f.deal === w.deals.length && f.step === f.steps;
  let text = `deal ${f.deal} of ${w.deals.length}, action ${f.step} of ${f.steps}`;
  if (lastDeal && w.outcome) {
    text += `: match over, outcome ${perSide(w, w.outcome)}`;
  } else if (lastDeal) {
    text += ": the end of the record";
  } else if (f.views[0].to_move !== null) {
    text += `: seat ${f.views[0].to_move} to move`;
  }
  status.textContent = text;
  status.className = lastDeal ? "over" : "waiting";
  $("#notice").hidden = true;
}

function renderScore(model) {
  const totals = model.view.totals;
  const parts = [];
  if (model.team_game) {
    for (const team of [0, 1]) {
      const seats = [team, team + 2];
      const mark = seats.includes(model.me) && page.mode === "play" ? " (you)" : "";
      parts.push(el("span", { class: "total", "data-team": team }, `team ${seats.join("+")}${mark}: ${totals[team]}`));
    }
  } else {
    totals.forEach((total, seat) => {
      parts.push(el("span", { class: "total", "data-seat": seat }, `${seatName(model, seat)}: ${total}`));
    });
  }
  const what = factsOf(model.game).totals || "points";
  $("#score").replaceChildren(el("strong", {}, `Score (${what})`), ...parts,
    el("span", { class: "deal-points" }, `this deal: ${perSide(model, model.view.deal_points)}`));
}

// A deal that ended since the last drawing (the bots deal on at once) is
// announced above the table until the person's next move or "OK".
function renderDealOver(model) {
  const box = $("#deal-over");
  if (page.mode !== "play") {
    box.hidden = true;
    return;
  }
  const deals = page.match.deals;
  if (page.dealsSeen !== null && deals.length > page.dealsSeen) {
    const d = deals[deals.length - 1];
    page.dealOver = `Deal ${d.number} is over: points ${perSide(model, d.points)}; `
      + `totals ${perSide(model, d.totals)}.`;
  }
  page.dealsSeen = deals.length;
  box.hidden = !page.dealOver;
  box.replaceChildren(el("span", {}, page.dealOver || ""),
    el("button", { type: "button", id: "deal-over-ok", onclick: () => { page.dealOver = null; render(); } }, "OK"));
}

// Points or totals per seat, written per team in a team game (partners share them).
function perSide(model, values) {
  if (!model.team_game) return values.join(" · ");
  return `team 0+2 ${values[0]} · team 1+3 ${values[1]}`;
}

function renderCycle(cycle, deck) {
  const order = [...cycle];
  const parts = [el("span", { class: "cycle-label" }, "suit cycle:")];
  order.concat([order[0]]).forEach((suit, i) => {
    if (i) parts.push(el("span", { class: "beats" }, "beats"));
    const pic = svg("svg", { viewBox: "-9 -9 18 18", class: "suit-icon", role: "img", "aria-label": SUIT_NAMES[deck][suit] });
    pic.append(suitSymbol(deck, suit));
    parts.push(el("span", { class: "cycle-suit" }, pic, SUIT_NAMES[deck][suit]));
  });
  $("#cycle").replaceChildren(...parts);
}

function seatPanel(model, seat) {
  const view = model.view;
  const mine = seat === model.me && page.mode === "play";
  const classes = ["seat"];
  if (mine) classes.push("me");
  if (view.to_move === seat) classes.push("to-move");
  if (model.thinking === seat) classes.push("thinking");
  const team = teamOf(model, seat);
  const badges = [];
  if (view.dealer === seat) badges.push(el("span", { class: "badge", title: "dealer" }, "dealer"));
  if (team !== null) badges.push(el("span", { class: `badge team-${team}` }, `team ${team}`));
  if (model.thinking === seat) badges.push(el("span", { class: "badge spinner" }, "thinking"));
  const facts = seatFacts(model, seat);
  return el("div", { class: classes.join(" "), "data-seat": seat },
    el("div", { class: "seat-head" }, el("span", { class: "seat-name" }, mine ? `seat ${seat} · you` : seatName(model, seat)), ...badges),
    el("div", { class: "facts" }, facts),
    el("div", { class: "hand" }, handOf(model, seat)));
}

function seatFacts(model, seat) {
  const v = model.view;
  if (v.bids !== undefined) {
    const bid = v.bids[seat];
    const maker = v.trump_maker === seat ? "trump maker · " : "";
    return `${maker}bid ${bid === null ? "–" : bid} · tricks ${v.tricks_won[seat]}`;
  }
  if (v.tricks_won !== undefined) return `tricks ${v.tricks_won[seat]}`;
  if (hasMultiCardPlays(v)) return `${v.hand_sizes[seat]} cards`;
  const won = shownTrickEnds(model).filter((t) => t.winner === seat).length;
  return `tricks ${won} · ${v.hand_sizes[seat]} cards`;
}

// The trick ends of the deal the view shows: a match that ends mid-deal (Coins)
// has already summed that deal up among the finished ones.
function shownTrickEnds(model) {
  const last = model.deals.length ? model.deals[model.deals.length - 1] : null;
  if (!model.trickEnds.length && last && last.number === model.view.deal_number) return last.trick_ends;
  return model.trickEnds;
}

// A seat's cards: its own view's where it is known, backs elsewhere.
function handOf(model, seat) {
  const own = model.views[seat];
  const legal = model.legal;
  const mine = seat === model.me && page.mode === "play";
  const game = model.game;
  if (hasSlots(model.view)) return slotHand(model, seat);
  const cards = own ? own.hand : Array(model.view.hand_sizes[seat]).fill("??");
  if (hasMultiCardPlays(model.view) && mine) {  // cards are selected, then played together
    return cards.map((card) => cardElement(game, card, null, {
      selected: page.selected.includes(card), onclick: () => toggleSelected(card),
    }));
  }
  return cards.map((card) => ownCard(model, card, mine && legal.includes(card) ? card : null, mine));
}

// A card of the human's own while it is to move: playable, or a button that
// says why not (``named`` is how an action names it: the card, or its slot).
function ownCard(model, card, action, mine, named) {
  if (action || !mine || !model.legal.length) return cardElement(model.game, card, action);
  return cardElement(model.game, card, null, { onclick: () => explainAction(named || card) });
}

const SLOT_NAMES = ["T1", "T2", "F1", "F2", "H"];
// The order a deal fills the slots: a small variant deals only the first `hand` (docs/rules.md §2.15).
const DEALT_FIRST = ["F1", "H", "T1", "F2", "T2"];

function slotHand(model, seat) {
  const n = model.players.length;
  const base = model.view.hands[seat];
  const ownView = model.views[seat];
  let forehead = base.forehead;
  let hidden = base.hidden;
  if (model.faceUp) {  // all hands face up: each card from a seat that sees it
    forehead = model.views[(seat + 1) % n].hands[seat].forehead;
    hidden = ownView.hands[seat].hidden;
  }
  const cards = [base.table[0], base.table[1], forehead[0], forehead[1], hidden];
  const mine = seat === model.me && page.mode === "play";
  const dealt = DEALT_FIRST.slice(0, (model.view.options || {}).hand ?? DEALT_FIRST.length);
  return cards.flatMap((card, i) => {
    const slot = SLOT_NAMES[i];
    if (!dealt.includes(slot)) return [];  // never dealt: no slot drawn, rather than one looking played
    let node;
    const played = base.played && base.played[slot];
    if (card === null && played) {
      node = playedSlot(model.game, slot, played);
    } else if (card === null) {
      node = emptySlot(slot);
    } else {
      let action = null;
      if (mine && model.legal.includes(card)) action = card;
      else if (mine && model.legal.includes(slot)) action = slot;
      node = ownCard(model, card, action, mine, card === "??" ? slot : card);
    }
    return el("span", { class: `slot slot-${slot}` }, node, el("span", { class: "slot-name" }, slot));
  });
}

// The middle of the table: trump, stock, the trick being played.
function centre(model) {
  const v = model.view;
  const parts = [];
  const deck = deckOf(model.game);
  if (v.trump !== undefined) {  // a trump suit someone names
    parts.push(el("div", { class: "trump" }, v.trump ? ["trump ", suitIcon(deck, v.trump), ` ${SUIT_NAMES[deck][v.trump]}`] : "no trump named yet"));
  }
  if (v.trump_card !== undefined) {  // a trump card turned up, and a stock
    parts.push(el("div", { class: "trump" }, "trump card ", cardElement(model.game, v.trump_card, null, { small: true }),
      ` · stock ${v.stock_size} cards`));
  }
  parts.push(el("div", { class: "trick" }, el("div", { class: "trick-title" }, "trick"), ...currentTrick(model)));
  return el("div", { class: "centre" }, parts);
}

function suitIcon(deck, suit) {
  const pic = svg("svg", { viewBox: "-9 -9 18 18", class: "suit-icon", role: "img", "aria-label": SUIT_NAMES[deck][suit] });
  pic.append(suitSymbol(deck, suit));
  return pic;
}

function currentTrick(model) {
  const v = model.view;
  const n = model.players.length;
  const game = model.game;
  let plays = [];
  if (hasMultiCardPlays(v)) {  // no trick at all between deals and at the end
    plays = (v.trick ? v.trick.plays : []).map((p, i) => {
      let cards = p.cards;
      const own = model.faceUp && model.views[p.seat] && model.views[p.seat].trick;
      if (own) cards = own.plays[i].cards;
      return { seat: p.seat, cards, label: p.kind };
    });
  } else {
    plays = (v.trick || []).map((card, i) => ({ seat: (v.leader + i) % n, cards: [card], label: "" }));
  }
  if (!plays.length) return [el("span", { class: "empty-trick" }, "no card played yet")];
  return plays.map((p) => el("div", { class: "play", "data-seat": p.seat },
    el("span", { class: "play-seat" }, `seat ${p.seat}${p.label ? " " + p.label : ""}`),
    el("span", { class: "play-cards" }, p.cards.map((c) => cardElement(game, c, null, { small: true })))));
}

// ---------------------------------------------------------------- actions

function renderActions(model) {
  const box = $("#actions");
  const legal = model.legal;
  const parts = [];
  if (page.mode === "play" && legal.length) {
    const game = model.game;
    const isWord = (a) => a.startsWith("trump:") || a.startsWith("bid:") || a === "molodka" || a === "pass";
    const words = legal.filter(isWord);
    if (words.length) {
      // A barred action (Koetsieren's hooked bid) stands greyed out in its place and says why.
      const buttons = [...words.map((a) => ({ action: a, reason: null })), ...model.barred.filter((b) => isWord(b.action))];
      buttons.sort((a, b) => wordOrder(a.action) - wordOrder(b.action));
      parts.push(el("div", { class: "word-actions" }, buttons.map((b) => b.reason === null
        ? el("button", { type: "button", class: "action", "data-action": b.action, onclick: () => play(b.action) }, actionLabel(b.action, model))
        : el("button", {
          type: "button", class: "action barred", "data-barred": b.action, "aria-disabled": "true", title: b.reason,
          onclick: () => { $("#explain").hidden = false; $("#explain").textContent = b.reason; },
        }, actionLabel(b.action, model)))));
    }
    if (hasMultiCardPlays(model.view) && legal.some((a) => a.includes(":"))) parts.push(multiCardControls(legal, game));
    else if (!words.length) parts.push(el("span", { class: "hint" }, "your turn: click a card"));
  }
  box.replaceChildren(...parts);
  if (!(page.mode === "play" && legal.length)) $("#explain").hidden = true;
}

// Bids in numeric order; other words keep the order the engine lists them in.
function wordOrder(action) {
  return action.startsWith("bid:") ? Number(action.slice(4)) : -1;
}

function actionLabel(action, model) {
  const deck = model ? deckOf(model.game) : "french";
  if (action.startsWith("trump:")) {
    const suit = action.slice(6);
    return el("span", {}, suitIcon(deck, suit), ` trump ${SUIT_NAMES[deck][suit]}`);
  }
  if (action.startsWith("bid:")) return `bid ${action.slice(4)}`;
  if (action === "molodka") {
    // The molodka is the whole hand: four cards of one suit (docs/rules.md §3.10).
    const hand = model ? model.view.hand : [];
    const suit = hand.length ? hand[0][1] : null;
    if (!suit || !hand.every((c) => c[1] === suit)) return "declare the molodka";
    return el("span", {}, "declare the molodka: lead all four ", suitIcon(deck, suit), ` ${SUIT_NAMES[deck][suit]}`);
  }
  if (action === "pass") return model && model.legal.includes("molodka") ? "pass (play on without declaring)" : "pass";
  if (action === "pass") return "pass";
  return action;
}

// Plays of several cards (Kozel): build a lead, beat or discard by selecting cards; every legal
// action is also listed.
function multiCardControls(legal, game) {
  const sets = legal.filter((a) => a.includes(":"));
  const kinds = [...new Set(sets.map((a) => a.split(":")[0]))];
  const build = el("div", { class: "build" },
    el("span", {}, page.selected.length ? `selected: ${page.selected.join(", ")}` : "select cards in your hand, then:"),
    kinds.map((kind) => el("button", { type: "button", class: "build-action", "data-kind": kind, onclick: () => playSelection(kind) }, kind)),
    page.selected.length ? el("button", { type: "button", class: "build-clear", onclick: () => { page.selected = []; render(); } }, "clear") : null);
  const list = el("details", { class: "all-moves", open: true },
    el("summary", {}, "all legal moves"),
    el("div", { class: "moves" }, sets.map((a) => el("button", {
      type: "button", class: "action move", "data-action": a, onclick: () => play(a), title: a,
    }, moveLabel(a, game)))));
  return el("div", { class: "multi-card" }, build, list);
}

// A move of several cards as its kind and small pictures of its cards ("lead" 7h 9h).
function moveLabel(action, game) {
  const cards = actionCards(action);
  if (!cards) return action;
  return el("span", { class: "move-label" }, `${action.split(":")[0]} `,
    cards.map((c) => cardPicture(game, c, "tiny")));
}

function toggleSelected(card) {
  const at = page.selected.indexOf(card);
  if (at >= 0) page.selected.splice(at, 1);
  else page.selected.push(card);
  render();
}

async function playSelection(kind) {
  const cards = page.selected;
  const explain = $("#explain");
  if (!cards.length) {
    explain.hidden = false;
    explain.textContent = `select the cards to ${kind} first`;
    return;
  }
  const legal = page.match.view.legal_actions || [];
  const match = legal.find((a) => a.startsWith(kind + ":") && sameCards(a.slice(kind.length + 1).split(","), cards));
  if (match) {
    await play(match);
    return;
  }
  try {  // the rules say why: the engine's own explanation
    const answer = await api("POST", "/web/api/explain", { action: `${kind}:${cards.join(",")}` });
    explain.hidden = false;
    explain.textContent = answer.reason;
  } catch (err) {
    showError(err.message);
  }
}

async function play(action) {
  if (page.mode !== "play") return;
  showError("");
  $("#explain").hidden = true;
  const version = page.match.version;
  page.dealOver = null;
  try {
    page.match = await api("POST", "/web/api/act", { action });
    page.selected = [];
    render();
    poll();
  } catch (err) {
    showError(err.message);
    const now = await api("GET", "/web/api/match").catch(() => null);
    if (now && now.kind === "match" && now.version !== version) {  // it moved on (another tab?)
      page.match = now;
      page.selected = [];
      render();
      showError(`${err.message}. The match had moved on, perhaps in another tab: here it is as it is now.`);
    }
  }
}

// Why an unplayable card cannot be played now (the rules' own words).
async function explainAction(action) {
  const explain = $("#explain");
  try {
    const answer = await api("POST", "/web/api/explain", { action });
    explain.hidden = false;
    explain.textContent = answer.reason === "legal" ? `${action} is legal` : answer.reason;
  } catch (err) {
    showError(err.message);
  }
}

// -------------------------------------------------------------------- log

// Completed tricks of several-card plays as the views list them (Kozel: a molodka's four cards
// and the cards it sent back are right there; its history says only "molodka").
// Watching, each play is taken from the view of the seat that made it.
function multiCardTricks(model) {
  return model.view.tricks.map((trick, t) => ({
    winner: trick.winner,
    plays: trick.plays.map((p, i) => {
      const own = model.faceUp && model.views[p.seat] ? model.views[p.seat].tricks[t].plays[i].cards : p.cards;
      return { seat: p.seat, label: p.kind, cards: own };
    }),
  }));
}

function lastTrick(model) {
  let tricks = hasMultiCardPlays(model.view) ? multiCardTricks(model) : tricksOf(model.history, model.trickEnds);
  let where = "this deal";
  if (!tricks.length && model.deals.length) {
    const last = model.deals[model.deals.length - 1];
    tricks = last.tricks ? last.tricks.map((t) => ({
      winner: t.winner, plays: t.plays.map((p) => ({ seat: p.seat, label: p.kind, cards: p.cards })),
    })) : tricksOf(last.history, last.trick_ends);
    where = `deal ${last.number}`;
  }
  const trick = tricks[tricks.length - 1];
  return trick ? { ...trick, where } : null;
}

function renderLog(model) {
  const last = lastTrick(model);
  const box = $("#last-trick");
  if (last) {
    const winner = last.winner === null ? "nobody (a spoiled trick)" : `seat ${last.winner}`;
    box.replaceChildren(el("h3", {}, `Last trick (${last.where}): to ${winner}`),
      el("div", { class: "trick last", "data-winner": last.winner === null ? "none" : last.winner },
        last.plays.map((p) => el("div", { class: "play", "data-seat": p.seat },
          el("span", { class: "play-seat" }, `seat ${p.seat}${p.label ? " " + p.label : ""}`),
          el("span", { class: "play-cards" }, p.cards.map((c) => cardElement(model.game, c, null, { small: true })))))));
  } else {
    box.replaceChildren();
  }
  const deals = page.mode === "watch" ? page.watch.deals : model.deals.map((d) => ({
    number: d.number, points: d.points, totals: d.totals, trick_winners: d.trick_ends.map((t) => t.winner),
  }));
  $("#deals").replaceChildren(...(deals.length ? [el("h3", {}, "Deals")] : []), ...deals.map((d) => el("div", {
    class: "deal-result", "data-deal": d.number, "data-trick-winners": JSON.stringify(d.trick_winners),
    "data-points": JSON.stringify(d.points),
  }, `deal ${d.number}: points ${d.points ? perSide(model, d.points) : "(unfinished)"}; `
    + `totals ${perSide(model, d.totals)}; tricks to seats `
    + `${d.trick_winners.map((w) => (w === null ? "– (spoiled)" : w)).join(" ")}`)));
}

// --------------------------------------------------------------- playing

// Waits for the match to change, also while it is the human's turn: another
// tab of this browser may play the same match.
async function poll() {
  const mine = ++page.polling;
  while (mine === page.polling && page.mode === "play" && page.match && !page.match.over) {
    const m = page.match;
    try {
      const next = await api("GET", `/web/api/match?after=${m.version}`);
      if (mine !== page.polling) return;
      if (next.kind !== "match") {
        page.match = null;
        showSetup();
        return;
      }
      if (next.version !== m.version) {
        page.match = next;
        render();
      }
    } catch (err) {
      showError(err.message);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

// A typed number as the request carries it: an integer as a number when a
// JavaScript number holds it exactly, a longer one as its digits (the server reads
// a seed's digits exactly), anything else as the text typed, so that the server's
// refusal names it.
function typedNumber(text) {
  const trimmed = String(text).trim();
  if (/^-?[0-9]+$/.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isSafeInteger(value) ? value : trimmed;
  }
  return trimmed;
}

function startFromQuery(params) {
  const game = params.get("game");
  const options = {};
  for (const [key, value] of params.entries()) {
    if (key.startsWith("opt.")) options[key.slice(4)] = typedNumber(value);
  }
  const body = {
    game, options, seat: typedNumber(params.get("seat") || 0), agents: params.getAll("agent"),
    seed: typedNumber(params.get("seed") || 0),
  };
  return startMatch(body);
}

async function startMatch(body) {
  showError("");
  const button = $("#setup-start");
  const starting = $("#setup-starting");
  button.disabled = true;
  starting.hidden = false;
  try {
    page.match = await api("POST", "/web/api/match", body);
    page.mode = "play";
    page.selected = [];
    page.dealsSeen = null;
    page.dealOver = null;
    // A reload resumes this match instead of starting another.
    history.replaceState(null, "", "/");
    render();
    poll();
  } catch (err) {
    showError(err.message);
    showSetup(body);
  } finally {
    button.disabled = false;
    starting.hidden = true;
  }
}

// ------------------------------------------------------------------ setup

function showSetup(preset) {
  page.mode = "setup";
  page.polling++;
  const select = $("#setup-game");
  if (!select.options.length) {
    for (const [name, facts] of Object.entries(page.info.games)) {
      select.append(el("option", { value: name }, facts.title || name));
    }
    select.addEventListener("change", () => setupFields());
  }
  if (preset && preset.game in page.info.games) select.value = preset.game;
  if (preset && preset.seed !== undefined) $("#setup-seed").value = String(preset.seed);
  setupFields(preset);
  const running = page.match && !page.match.over;
  $("#setup-replaces").hidden = !running;
  render();
}

function setupPlayers() {
  const game = $("#setup-game").value;
  const spec = page.info.games[game];
  if (spec.options.players) {  // the number of seats is an option of the game
    const input = document.getElementById("opt-players");
    const range = spec.options.players;
    const typed = input ? Number(input.value) : NaN;
    // A count out of range draws the nearest allowed number of rows (the form refuses to start).
    if (Number.isInteger(typed)) return Math.min(Math.max(typed, range.min), range.max);
  }
  return spec.players;
}

function setupFields(preset) {
  const game = $("#setup-game").value;
  const spec = page.info.games[game];
  // What the game is, in a line, and a link to its rules (the rule book this server ships).
  const about = $("#setup-game-about");
  about.replaceChildren(spec.summary ? `${spec.summary}. ` : "");
  if (spec.rules) {
    about.append(el("a", { href: "/static/rules.md", target: "_blank", rel: "noopener" }, `Rules: ${spec.rules}`));
  }
  const options = $("#setup-options");
  options.replaceChildren(...Object.entries(spec.options).map(([name, o]) => el("label", { title: `${name}: ${o.doc}` },
    `${optionLabel(name)} `, el("input", {
      type: "number", id: `opt-${name}`, "data-option": name, min: o.min, max: o.max,
      value: preset && preset.options && name in preset.options ? preset.options[name] : o.default,
      onchange: () => setupSeats(),
    }), el("span", { class: "hint" }, ` ${o.doc}`))));
  setupSeats(preset);
}

// "first_dealer" reads as "First dealer" (the request still names it first_dealer).
function optionLabel(name) {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function agentChoices() {
  const choices = Object.keys(page.info.agents).map((name) => ({ value: name, label: name }));
  for (const [name, set] of Object.entries(page.info.parameter_sets || {})) {
    if (set.agent) choices.push({ value: `${set.agent}:params=${name}`, label: `${set.agent} with tuned set ${name}` });
  }
  return choices;
}

// An agent's line from the server's hello ("ismcts:params=NAME" is its agent's).
function agentDescription(choice) {
  const facts = page.info.agents[String(choice).split(":")[0]];
  return facts ? facts.description : "";
}

function setupSeats(preset) {
  const n = setupPlayers();
  const seatSelect = $("#setup-seat");
  const wanted = preset && Number.isInteger(preset.seat) ? preset.seat : Number(seatSelect.value || 0);
  seatSelect.replaceChildren(...Array.from({ length: n }, (_, s) => el("option", { value: s }, `seat ${s}`)));
  seatSelect.value = String(Math.min(Math.max(wanted, 0), n - 1));
  seatSelect.onchange = () => setupAgents();
  setupAgents(preset);
}

// An agent spec as the form's two fields: a listed choice and its extra parameters.
function agentFields(spec) {
  const text = String(spec).trim();
  for (const choice of agentChoices()) {  // a tuned set first: "ismcts:params=NAME[,more]"
    if (!choice.value.includes(":")) continue;
    if (text === choice.value) return [choice.value, ""];
    if (text.startsWith(`${choice.value},`)) return [choice.value, text.slice(choice.value.length + 1)];
  }
  const colon = text.indexOf(":");
  return colon < 0 ? [text, ""] : [text.slice(0, colon), text.slice(colon + 1)];
}

// The other seats' agent rows; ``preset.agents`` (a refused start, or the last
// match) fills them, otherwise the rows keep what was chosen before.
function setupAgents(preset) {
  const n = setupPlayers();
  const me = Number($("#setup-seat").value);
  const box = $("#setup-agents");
  const old = preset && Array.isArray(preset.agents) ? preset.agents.map(agentFields)
    : [...box.querySelectorAll(".agent-row")].map((row) => [row.querySelector("select").value, row.querySelector("input").value]);
  const rows = [];
  let index = 0;
  for (let seat = 0; seat < n; seat++) {
    if (seat === me) continue;
    let [chosen, params] = old[index] || ["heuristic", ""];
    index++;
    const select = el("select", { class: "agent-name" }, agentChoices().map((c) => el("option", { value: c.value }, c.label)));
    select.value = chosen;
    if (!select.value) [select.value, params] = ["heuristic", ""];  // not an agent this server offers
    const about = el("span", { class: "hint agent-about" });
    const describe = () => { about.textContent = ` ${agentDescription(select.value)}`; };
    select.addEventListener("change", describe);
    describe();
    rows.push(el("div", { class: "agent-row" }, el("label", {}, `seat ${seat}: `, select),
      el("label", {}, " parameters ", el("input", { type: "text", class: "agent-params", placeholder: "key=value,...", value: params })),
      about));
  }
  box.replaceChildren(...rows);
}

function setupBody() {
  const game = $("#setup-game").value;
  const options = {};
  for (const input of document.querySelectorAll("#setup-options input")) options[input.dataset.option] = typedNumber(input.value);
  const agents = [...document.querySelectorAll("#setup-agents .agent-row")].map((row) => {
    const name = row.querySelector("select").value;
    const params = row.querySelector("input").value.trim();
    if (!params) return name;
    return name.includes(":") ? `${name},${params}` : `${name}:${params}`;
  });
  return { game, options, seat: Number($("#setup-seat").value), agents, seed: typedNumber($("#setup-seed").value || 0) };
}

// ---------------------------------------------------------------- watching

async function showWatchOpen() {
  page.mode = page.watch ? "watch" : "watch-open";
  page.polling++;
  render();
  try {
    const shelf = await api("GET", "/web/api/shelf");
    $("#shelf").replaceChildren(...(shelf.records.length ? [el("h3", {}, "From this server's results folders")] : []),
      ...shelf.records.map((r) => el("button", { type: "button", class: "shelf-record", "data-record": r.id, onclick: () => openWatch({ shelf: r.id }) }, r.title)));
  } catch (err) {
    showError(err.message);
  }
}

async function openWatch(body) {
  showError("");
  try {
    page.watch = await api("POST", "/web/api/watch", body);
    page.mode = "watch";
    await showFrame(1, 0);
  } catch (err) {
    showError(err.message);
  }
}

async function showFrame(deal, step) {
  try {
    page.frame = await api("GET", `/web/api/frame?deal=${deal}&step=${step}`);
    const slider = $("#watch-slider");
    slider.max = page.frame.steps;
    slider.value = page.frame.step;
    $("#watch-position").textContent = `deal ${deal} · ${step}/${page.frame.steps}`;
    render();
  } catch (err) {
    showError(err.message);
  }
}

function watchStep(delta) {
  const f = page.frame;
  if (!f) return;
  const deals = page.watch.deals.length;
  let step = f.step + delta;
  if (step > f.steps) {
    if (f.deal < deals) return showFrame(f.deal + 1, 0);
    step = f.steps;
  }
  if (step < 0) {
    if (f.deal > 1) return showFrame(f.deal - 1, page.watch.deals[f.deal - 2].steps);
    step = 0;
  }
  return showFrame(f.deal, step);
}

// >> goes to the end of this deal, then to the start of the next; << to the
// start of this deal, then to the start of the one before.
function watchDeal(delta) {
  const f = page.frame;
  if (!f) return;
  if (delta > 0 && f.step < f.steps) return showFrame(f.deal, f.steps);
  if (delta < 0 && f.step > 0) return showFrame(f.deal, 0);
  const deal = f.deal + delta;
  if (deal < 1 || deal > page.watch.deals.length) return;  // already at the record's start or end
  return showFrame(deal, 0);
}

// ------------------------------------------------------------------- start

async function main() {
  page.mode = "loading";
  $("#tab-play").addEventListener("click", async () => {
    if (!page.info) return;  // still loading
    if (page.match) {
      page.mode = "play";
      render();
      poll();
    } else {
      showSetup();
    }
  });
  $("#tab-watch").addEventListener("click", () => showWatchOpen());
  $("#setup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    startMatch(setupBody());
  });
  // The form starts from the last match: its game, options, seat and agents (a new seed is the person's choice).
  const newMatch = () => showSetup(page.match ? {
    game: page.match.game, options: page.match.options, seat: page.match.seat,
    agents: page.match.players.filter((_, s) => s !== page.match.seat),
  } : undefined);
  $("#new-match").addEventListener("click", newMatch);
  $("#leave-match").addEventListener("click", newMatch);
  $("#watch-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    let record;
    try {
      record = JSON.parse(await file.text());
    } catch (err) {
      showError(`${file.name}: not JSON (${err.message})`);
      return;
    }
    if (record && typeof record === "object" && "record" in record && !("game" in record)) record = record.record;
    await openWatch({ record, title: file.name.slice(0, 120) });
  });
  $("#watch-next").addEventListener("click", () => watchStep(1));
  $("#watch-prev").addEventListener("click", () => watchStep(-1));
  $("#watch-next-deal").addEventListener("click", () => watchDeal(1));
  $("#watch-prev-deal").addEventListener("click", () => watchDeal(-1));
  $("#watch-first-deal").addEventListener("click", () => showFrame(1, 0));
  $("#watch-slider").addEventListener("input", (event) => showFrame(page.frame.deal, Number(event.target.value)));
  try {
    page.info = await api("GET", "/v1/info");
    learnCardNames(page.info);
  } catch (err) {
    showError(`cannot reach the slagwerk server: ${err.message}`);
    return;
  }
  if (page.mode !== "loading") return;  // the reader chose a tab meanwhile
  const params = new URLSearchParams(location.search);
  if (params.get("game")) {
    await startFromQuery(params);
    return;
  }
  const current = await api("GET", "/web/api/match").catch(() => ({ kind: "none" }));
  if (page.mode !== "loading") return;
  if (current.kind === "match") {
    page.match = current;
    page.mode = "play";
    render();
    poll();
  } else {
    showSetup();
  }
}

document.addEventListener("DOMContentLoaded", main);
