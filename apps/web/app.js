// euchre serve: the page. Plain JavaScript, no build step, no library.
// Everything shown comes from the server's JSON views (apps/serve.py), which hold only what the
// viewer's seat may see; this file only draws them and sends the person's clicks back.
"use strict";

const ui = {
  mode: "play",
  config: null,
  view: null, // the live game's view
  busy: false,
  records: [], // records read from a file (replay mode)
  replay: null, // the open replay's view
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
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

async function api(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data;
  try {
    data = await response.json();
  } catch (err) {
    data = { error: `HTTP ${response.status}` };
  }
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// --- small pieces -------------------------------------------------------------------------

function seatName(view, seat) {
  if (seat === null || seat === undefined) return "nobody";
  const you = view.viewer === seat && view.human !== undefined;
  return you ? `player_${seat} (you)` : `player_${seat}`;
}

function cardSpan(card, extra = {}) {
  return el("span", { class: `card${card.red ? " red" : ""}`, "data-card": card.name, ...extra }, card.label);
}

function suitText(suit) {
  return suit ? `${suit.name} ${suit.symbol}` : "";
}

const POSITIONS = {
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left-low", "left-high", "right-high", "right-low"],
};

function position(view, seat) {
  const bottom = view.viewer === null || view.viewer === undefined ? 0 : view.viewer;
  const p = view.num_players;
  return POSITIONS[p][(seat - bottom + p) % p];
}

// --- drawing a view -----------------------------------------------------------------------

function drawSeats(view) {
  const box = $("seats");
  box.replaceChildren();
  const trick = view.trick;
  for (const s of view.seats) {
    const badges = el("div", { class: "badges" },
      s.dealer ? el("span", { class: "dealer", text: "dealer" }) : null,
      s.maker ? el("span", { class: "maker", text: view.alone ? "maker, alone" : "maker" }) : null,
      s.partner_known && !s.maker ? el("span", { class: "partner", text: "partner" }) : null,
      s.defends_alone ? el("span", { text: "defends alone" }) : null,
      s.sitting_out ? el("span", { text: "sits out" }) : null,
      view.winners.includes(s.seat) ? el("span", { class: "winner", text: "wins the game" }) : null,
    );
    let cardsShown;
    if (view.all_hands) {
      cardsShown = el("div", { class: "mini-hand" }, view.all_hands[s.seat].map((c) => cardSpan(c)));
    } else if (s.seat === view.viewer) {
      cardsShown = el("div", { class: "backs" }, "");
    } else {
      cardsShown = el("div", { class: "backs", title: `${s.cards} cards` },
        Array.from({ length: s.cards }, () => el("span", { class: "back" })));
    }
    box.append(el("div", {
      class: `seat pos-${position(view, s.seat)}${s.to_act ? " to-act" : ""}${s.you ? " you" : ""}${s.sitting_out ? " sitting-out" : ""}`,
      "data-seat": s.seat,
    },
      el("div", { class: "name" }, seatName(view, s.seat)),
      el("div", { class: "agent" }, s.agent),
      badges,
      cardsShown,
      el("div", { class: "counts" }, `tricks ${s.tricks} · score ${s.score}`),
    ));
  }
  // the trick on the table, each card in front of its player
  const area = $("trick");
  area.replaceChildren();
  $("trick-label").textContent = "";
  if (trick) {
    for (const { seat, card } of trick.cards) {
      const won = trick.winner === seat;
      area.append(el("div", { class: `played pos-${position(view, seat)}${won ? " won" : ""}`, "data-seat": seat },
        cardSpan(card)));
    }
    $("trick-label").textContent = trick.winner === null
      ? `trick ${trick.index + 1}, led by ${seatName(view, trick.leader)}`
      : `trick ${trick.index + 1} won by ${seatName(view, trick.winner)}`;
  }
}

function drawCenter(view) {
  const line = $("contract-line");
  line.replaceChildren();
  if (view.trump) {
    line.append(`trump ${suitText(view.trump)} · maker ${seatName(view, view.maker)}`);
    if (view.alone) line.append(" · alone");
    if (view.called) line.append(" · called ", cardSpan(view.called));
  } else {
    line.append("trump not yet made");
  }
  const up = $("upcard");
  up.replaceChildren();
  const bidding = ["BID_UPCARD", "BID_SUIT", "DISCARD"].includes(view.phase);
  if (view.upcard && (bidding || !view.trump)) {
    up.append("upcard ", cardSpan(view.upcard, { id: "upcard-card" }), view.upcard_fate ? ` (${view.upcard_fate})` : "");
  }
}

function drawSide(view) {
  // contract
  const contract = $("contract");
  contract.replaceChildren();
  contract.append(el("div", {}, `hand ${view.hand_no} · dealer ${seatName(view, view.dealer)} · ${view.phase_words}`));
  if (view.trump) {
    contract.append(el("div", { id: "trump" }, `trump ${suitText(view.trump)}, maker ${seatName(view, view.maker)}`));
    if (view.alone) contract.append(el("div", {}, "the maker goes alone"));
    if (view.with_partner) contract.append(el("div", {}, `with partner player_${(view.maker + 2) % 4}`));
    if (view.called) {
      const holder = view.called_holder === null ? "partner hidden"
        : view.reveal_trick !== null ? `played by ${seatName(view, view.called_holder)} in trick ${view.reveal_trick + 1}`
          : view.called_holder === view.viewer ? "you hold it: you are the hidden partner"
            : `held by ${seatName(view, view.called_holder)}`;
      contract.append(el("div", { id: "called" }, "called card ", cardSpan(view.called), ` (${holder})`));
    }
    if (view.defender_alone !== null) contract.append(el("div", {}, `${seatName(view, view.defender_alone)} defends alone`));
  }
  if (view.discard) contract.append(el("div", {}, "your discard ", cardSpan(view.discard)));
  if (view.kitty) contract.append(el("div", {}, "kitty ", view.kitty.map((c) => cardSpan(c))));
  if (view.dealer_discard) contract.append(el("div", {}, "dealer's discard ", cardSpan(view.dealer_discard)));
  // bids
  const bids = $("bids");
  bids.replaceChildren();
  for (const round of view.bids) {
    bids.append(el("div", { class: "bid-round" }, `round ${round.round}: `,
      round.bids.map((b) => `${seatName(view, b.seat)} ${b.word}`).join(", ") || "-"));
  }
  // tricks with their winners
  const tricks = $("tricks");
  tricks.replaceChildren();
  const shown = view.tricks.length ? view.tricks : (view.last_tricks || []);
  if (!view.tricks.length && view.last_tricks && view.last_tricks.length) tricks.append(el("div", {}, "last hand:"));
  if (shown.length) {
    const table = el("table", { id: "trick-table" }, el("tr", {}, el("th", {}, "#"), el("th", {}, "cards"), el("th", {}, "won by")));
    for (const t of shown) {
      table.append(el("tr", { "data-trick": t.index },
        el("td", {}, String(t.index + 1)),
        el("td", {}, t.cards.map(({ seat, card }) => el("span", { title: `player_${seat}` }, `${seat}:`, cardSpan(card)))),
        el("td", { class: "trick-winner" }, seatName(view, t.winner))));
    }
    tricks.append(table);
  }
  // scores
  const scores = $("scores");
  scores.replaceChildren();
  const table = el("table", { id: "score-table" }, el("tr", {}, el("th", {}, "seat"), el("th", {}, "tricks"), el("th", {}, "score"),
    view.totals ? el("th", {}, "total") : null));
  for (const s of view.seats) {
    table.append(el("tr", { "data-seat": s.seat }, el("td", {}, seatName(view, s.seat)), el("td", {}, String(s.tricks)),
      el("td", {}, String(s.score)), view.totals ? el("td", {}, String(view.totals[s.seat])) : null));
  }
  scores.append(table);
  if (view.episode === "game") scores.append(el("div", { class: "note" }, `game to ${view.points_to_win}`));
  // belief
  const panel = $("belief-panel");
  panel.hidden = !view.belief;
  if (view.belief) {
    const bars = $("belief-bars");
    bars.replaceChildren();
    const rows = view.belief.seats.filter((r) => r.seat !== view.maker)
      .map((r) => [seatName(view, r.seat), r.p]).concat([["no partner", view.belief.no_partner]]);
    for (const [label, p] of rows) {
      bars.append(el("div", { class: "bar" }, el("span", { class: "label" }, label),
        el("span", { class: "fill", style: `width:${Math.round(p * 150)}px` }), `${(100 * p).toFixed(1)}%`));
    }
  }
  // the story
  const log = $("log");
  log.textContent = view.log.join("\n");
  log.scrollTop = log.scrollHeight;
}

function drawHandOver(view) {
  const box = $("hand-over");
  const s = view.summary;
  const over = view.phase === "DONE" || !!s;
  box.hidden = !over && !(view.records > 0);
  const summary = $("summary");
  summary.replaceChildren();
  if (s) {
    if (s.maker === null) summary.append("Hand over: everyone passed, the hand is thrown in.");
    else {
      summary.append(`Hand over: ${suitText(s.trump)} made by ${seatName(view, s.maker)}${s.alone ? " alone" : ""}`);
      if (s.called) summary.append(", called ", cardSpan(s.called), ` held by ${s.partner === null ? "nobody (out of play)" : seatName(view, s.partner)}`);
      summary.append(`; tricks ${s.tricks.join(" / ")}; points ${s.points.join(" / ")}`);
    }
  }
  if (view.game_over) summary.append(el("div", { id: "game-over" }, `Game over: ${view.winners.map((x) => seatName(view, x)).join(" & ")} win.`));
}

function drawPlayControls(view) {
  const legal = view.legal || [];
  const byCard = new Map();
  for (const a of legal) if (a.kind === "play" || a.kind === "discard") byCard.set(a.card.id, a);
  // your hand: every card a button, the legal ones highlighted
  const hand = $("hand");
  hand.replaceChildren();
  for (const card of view.hand) {
    const action = byCard.get(card.id);
    hand.append(el("button", {
      type: "button",
      class: `card${card.red ? " red" : ""}${action ? " legal" : ""}`,
      "data-card": card.name,
      "data-action": action ? action.id : null,
      disabled: !action || ui.busy,
      title: action ? action.name : "not a legal move now",
      onclick: action ? () => move(action.id) : null,
    }, card.label));
  }
  // the other moves: bids, names, calls, declarations
  const box = $("actions");
  box.replaceChildren();
  for (const a of legal) {
    if (a.kind === "play" || a.kind === "discard") continue;
    const label = a.kind === "call" ? `call ${a.card.label}` : a.name;
    box.append(el("button", {
      type: "button",
      class: a.kind === "call" ? `call-card${a.card.red ? " red" : ""}` : "bid",
      "data-action": a.id,
      disabled: ui.busy,
      onclick: () => move(a.id),
    }, label));
  }
  let status = "";
  if (view.game_over) status = "Game over.";
  else if (view.phase === "DONE") status = "Hand over.";
  else if (view.your_turn) {
    status = view.phase === "DISCARD" ? "Your turn: discard a card (click it)."
      : view.phase === "PLAY" ? "Your turn: play a highlighted card." : "Your turn.";
  } else status = `Waiting for ${seatName(view, view.to_act)}.`;
  $("status").textContent = status;
  $("next-hand").hidden = !view.can_deal;
  const download = $("download-records");
  download.hidden = !view.records;
  download.href = `/api/games/${view.game_id}/records?format=jsonl`;
  const replays = $("replay-records");
  replays.replaceChildren();
  if (view.records) {
    replays.append("replay: ");
    for (let i = 0; i < view.records; i++) {
      replays.append(el("button", { type: "button", "data-record": i, onclick: () => replayGameRecord(i) }, `hand ${i + 1}`));
    }
  }
}

function draw(view, interactive) {
  drawSeats(view);
  drawCenter(view);
  drawSide(view);
  drawHandOver(view);
  if (interactive) drawPlayControls(view);
}

// --- playing ------------------------------------------------------------------------------

function setBusy(busy) {
  ui.busy = busy;
  document.body.classList.toggle("busy", busy);
  if (ui.view && ui.mode === "play") drawPlayControls(ui.view);
}

function showGame(view) {
  ui.view = view;
  $("board").dataset.version = view.version;
  $("board").dataset.gameId = view.game_id;
  draw(view, true);
}

async function move(actionId) {
  if (ui.busy || !ui.view) return;
  setBusy(true);
  try {
    const view = await api("POST", `/api/games/${ui.view.game_id}/move`,
      { version: ui.view.version, seat: ui.view.human, action: actionId });
    showError("");
    ui.busy = false;
    showGame(view);
  } catch (err) {
    showError(err.message);
    ui.busy = false;
    try { showGame(await api("GET", `/api/games/${ui.view.game_id}`)); } catch (_) { /* keep the old view */ }
  } finally {
    setBusy(false);
  }
}

async function nextHand() {
  if (!ui.view) return;
  try {
    showGame(await api("POST", `/api/games/${ui.view.game_id}/next`, { version: ui.view.version }));
    showError("");
  } catch (err) {
    showError(err.message);
  }
}

function fillForm() {
  const cfg = ui.config;
  const variant = $("variant");
  variant.replaceChildren(...cfg.variants.map((v) => el("option", { value: v, selected: v === cfg.defaults.variant }, v)));
  fillSeats();
  $("seed").value = cfg.defaults.seed ?? "";
  $("episode-game").checked = cfg.defaults.episode === "game";
  $("points-to-win").value = cfg.defaults.points_to_win ?? "";
  $("belief").checked = cfg.defaults.belief;
}

function fillSeats() {
  const cfg = ui.config;
  const p = cfg.players[$("variant").value];
  const current = Number($("seat").value || cfg.defaults.seat);
  const mine = current < p ? current : 0;
  $("seat").replaceChildren(...Array.from({ length: p }, (_, i) => el("option", { value: i, selected: i === mine }, `player_${i}`)));
  const bots = $("bots");
  bots.replaceChildren();
  const defaults = cfg.defaults.bots;
  for (let k = 1; k < p; k++) {
    const seat = (mine + k) % p;
    const wanted = defaults.length === 1 ? defaults[0] : (defaults[k - 1] || defaults[0]);
    bots.append(el("label", {}, `player_${seat} `, el("select", { class: "bot", "data-seat": seat },
      cfg.agents.map((a) => el("option", { value: a, selected: a === wanted }, a)))));
  }
  $("belief-option").hidden = !$("variant").value.startsWith("five");
}

async function newGame(event) {
  if (event) event.preventDefault();
  const body = {
    variant: $("variant").value,
    seat: Number($("seat").value),
    bots: Array.from(document.querySelectorAll("select.bot")).map((s) => s.value),
    episode: $("episode-game").checked ? "game" : "hand",
    belief: $("belief").checked,
  };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  if ($("points-to-win").value !== "") body.points_to_win = Number($("points-to-win").value);
  setBusy(true);
  try {
    const view = await api("POST", "/api/games", body);
    showError("");
    ui.busy = false;
    showGame(view);
  } catch (err) {
    showError(err.message);
  } finally {
    setBusy(false);
  }
}

// --- replaying ----------------------------------------------------------------------------

function parseRecords(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new Error("the file is empty");
  try {
    const whole = JSON.parse(trimmed);
    return Array.isArray(whole) ? whole : [whole];
  } catch (err) {
    return trimmed.split(/\r?\n/).filter((line) => line.trim()).map((line, i) => {
      try { return JSON.parse(line); } catch (e) { throw new Error(`line ${i + 1} is not JSON: ${e.message}`); }
    });
  }
}

function setRecords(records) {
  ui.records = records;
  $("record-index").replaceChildren(...records.map((_, i) => el("option", { value: i }, `hand ${i + 1} of ${records.length}`)));
}

async function openRecord(index) {
  const record = ui.records[index];
  try {
    const view = await api("POST", "/api/replays", { record });
    showError("");
    const p = view.num_players;
    const seat = $("replay-seat");
    const before = seat.value;
    seat.replaceChildren(el("option", { value: "all" }, "all hands"),
      ...Array.from({ length: p }, (_, i) => el("option", { value: i }, `player_${i}`)));
    if (before && (before === "all" || Number(before) < p)) seat.value = before;
    ui.replay = view;
    await replayStep(0);
  } catch (err) {
    showError(err.message);
  }
}

async function replayStep(step) {
  if (!ui.replay) return;
  const target = Math.max(0, Math.min(ui.replay.steps, step));
  try {
    const view = await api("GET", `/api/replays/${ui.replay.replay_id}?step=${target}&seat=${$("replay-seat").value || "all"}`);
    ui.replay = view;
    showReplay(view);
    showError("");
  } catch (err) {
    showError(err.message);
  }
}

function decisionText(view, d) {
  return d ? `${seatName(view, d.seat)}: ${d.name}` : "";
}

function showReplay(view) {
  $("board").dataset.step = view.step;
  $("replay-step").textContent = `step ${view.step} / ${view.steps}`;
  const parts = [];
  if (view.previous_decision) parts.push(`last: ${decisionText(view, view.previous_decision)}`);
  if (view.next_decision) parts.push(`next: ${decisionText(view, view.next_decision)}`);
  if (view.step === view.steps) parts.push(`points ${view.record_points.join(" / ")}`);
  $("replay-decision").textContent = parts.join(" · ");
  $("hand").replaceChildren(...view.hand.map((c) => cardSpan(c)));
  $("actions").replaceChildren();
  $("status").textContent = view.phase === "DONE" ? "Hand over." : `${seatName(view, view.to_act)} to act.`;
  $("next-hand").hidden = true;
  $("download-records").hidden = true;
  $("replay-records").replaceChildren();
  draw(view, false);
}

async function replayGameRecord(index) {
  try {
    const data = await api("GET", `/api/games/${ui.view.game_id}/records`);
    setRecords(data.records);
    setMode("replay");
    $("record-index").value = index;
    await openRecord(index);
  } catch (err) {
    showError(err.message);
  }
}

// --- modes and wiring ---------------------------------------------------------------------

function setMode(mode) {
  ui.mode = mode;
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.mode === mode);
  $("play-controls").hidden = mode !== "play";
  $("replay-controls").hidden = mode !== "replay";
  showError("");
  if (mode === "play" && ui.view) showGame(ui.view);
  if (mode === "replay" && ui.replay) showReplay(ui.replay);
}

function wire() {
  $("tab-play").addEventListener("click", () => setMode("play"));
  $("tab-replay").addEventListener("click", () => setMode("replay"));
  $("new-game").addEventListener("submit", newGame);
  $("variant").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillSeats);
  $("next-hand").addEventListener("click", nextHand);
  $("record-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      setRecords(parseRecords(await file.text()));
      await openRecord(0);
    } catch (err) {
      showError(`${file.name}: ${err.message}`);
    }
  });
  $("record-index").addEventListener("change", () => openRecord(Number($("record-index").value)));
  $("replay-seat").addEventListener("change", () => replayStep(ui.replay ? ui.replay.step : 0));
  $("replay-first").addEventListener("click", () => replayStep(0));
  $("replay-prev").addEventListener("click", () => replayStep(ui.replay.step - 1));
  $("replay-next").addEventListener("click", () => replayStep(ui.replay.step + 1));
  $("replay-last").addEventListener("click", () => replayStep(ui.replay.steps));
  document.addEventListener("keydown", (event) => {
    if (ui.mode !== "replay" || !ui.replay || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowRight") replayStep(ui.replay.step + 1);
    if (event.key === "ArrowLeft") replayStep(ui.replay.step - 1);
  });
}

async function start() {
  wire();
  try {
    ui.config = await api("GET", "/api/config");
    fillForm();
    await newGame();
  } catch (err) {
    showError(err.message);
  }
}

start();
