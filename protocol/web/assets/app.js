// polydbg's web view. Everything the debuggee says is put into the page as text
// (textContent, never innerHTML): a program's string cannot become markup.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const serverToken = new URLSearchParams(location.search).get("token");
const withToken = (url) => serverToken ? url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(serverToken) : url;
const status = (msg) => { $("#status").textContent = msg || ""; };

const OUTPUT_LINES = 1000;       // lines kept in the output pane
const PAINT_MS = 100;            // the output pane is painted at most this often
const PENDING_MAX = 1 << 20;     // output characters waiting for the next paint

if (location.pathname.startsWith("/s/")) {
  session(decodeURIComponent(location.pathname.slice(3)));
} else if (location.pathname.startsWith("/f/")) {
  feed(decodeURIComponent(location.pathname.slice(3)));
} else {
  index();
}

function index() {
  $("#index").hidden = false;
  $("#controls").hidden = true;
  const es = new EventSource("/api/sessions/events");
  es.addEventListener("sessions", (ev) => {
    const list = JSON.parse(ev.data);
    const body = $("#sessions tbody");
    body.replaceChildren();
    for (const s of list) {
      const tr = el("tr");
      const a = el("a", "", s.name);
      a.href = withToken("/s/" + encodeURIComponent(s.id));
      const name = el("td"); name.append(a);
      tr.append(el("td", "", s.id), name, el("td", "", s.kind), el("td", "", s.owner), el("td", "", s.state));
      body.append(tr);
    }
    sessionsShown = list.length;
    $("#nosessions").hidden = sessionsShown + feedsShown > 0;
  });
  let sessionsShown = 0, feedsShown = 0;
  const feeds = async () => {
    const r = await fetch("/api/feeds");
    if (!r.ok) return;
    const list = await r.json();
    const body = $("#feeds tbody");
    body.replaceChildren(...list.map((f) => {
      const tr = el("tr");
      const a = el("a", "", f.name);
      a.href = "/f/" + encodeURIComponent(f.id);
      const name = el("td"); name.append(a);
      tr.append(el("td", "", f.id), name, el("td", "", f.owner), el("td", "", f.state));
      return tr;
    }));
    feedsShown = list.length;
    $("#feedbox").hidden = list.length === 0;
    $("#nosessions").hidden = sessionsShown + feedsShown > 0;
  };
  feeds();
  setInterval(feeds, 2000);
}

// feed shows a program's output that is not a debug session (a lantern daemon's program).
function feed(id) {
  document.body.classList.add("feed");
  $("#session").hidden = false;
  $("#title").textContent = "program " + id;
  document.title = "polydbg: program " + id;
  const out = outputView();
  const es = new EventSource("/api/f/" + encodeURIComponent(id) + "/events");
  es.addEventListener("state", (ev) => {
    const st = JSON.parse(ev.data);
    $("#state").textContent = st.state;
    $("#state").className = "badge " + st.state.toLowerCase();
    if (st.state === "deleted") es.close();
  });
  es.addEventListener("output", (ev) => out.add(JSON.parse(ev.data)));
}

async function session(id) {
  $("#session").hidden = false;
  const api = "/api/s/" + encodeURIComponent(id);
  const info = await (await fetch(withToken(api + "/info"))).json();
  document.title = "polydbg: " + info.name;
  $("#title").textContent = info.name + " (" + info.kind + ", " + info.owner + ")";
  const token = info.token || "";
  if (!token) {
    $("#readonly").hidden = false;
    if (info.mirror) {
      $("#readonly").textContent = "read-only mirror: " + info.owner + " drives this session; the page follows it";
      document.body.classList.add("mirror");
    }
    for (const b of document.querySelectorAll("#controls button")) b.disabled = true;
  }
  if (info.console) document.body.classList.add("console");

  const post = async (what, body) => {
    const r = await fetch(api + "/" + what, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Polydbg-Token": token },
      body: JSON.stringify(body),
    });
    if (!r.ok) status(await r.text()); else status("");
  };
  for (const b of document.querySelectorAll("#controls button")) {
    b.addEventListener("click", () => post("control", { action: b.dataset.action }));
  }
  const into = $("#stepinto");
  let calls = [];
  into.addEventListener("change", () => {
    const i = Number(into.value);
    into.value = "";
    if (!token || !calls[i]) return;
    const nth = calls.slice(0, i).filter((c) => c.func === calls[i].func).length; // which of its calls on the line
    post("control", { action: "stepInto", target: calls[i].func, nth });
  });
  const callsView = (st) => {
    calls = st.state === "stopped" ? st.calls || [] : [];
    into.replaceChildren(el("option", "", "Step into…"), ...calls.map((c, i) => {
      const o = el("option", "", c.func + (c.column ? "  (column " + c.column + ")" : ""));
      o.value = String(i);
      return o;
    }));
    into.firstChild.value = "";
    into.disabled = !token || calls.length === 0;
  };
  document.addEventListener("keydown", (e) => {
    const keys = { F5: "continue", F6: "pause", F10: "stepOver", F11: e.shiftKey ? "stepOut" : "stepIn" };
    if (token && keys[e.key]) { e.preventDefault(); post("control", { action: keys[e.key] }); }
  });

  const src = sourceView(api, (file, line) => token ? post("breakpoints", { file, line }) : status("read-only"));
  const out = outputView();
  const flame = info.profile ? flameView(api) : null;
  const mcu = info.mcu ? mcuView(token ? (name, periodMs) => post("sample", { name, periodMs }) : null) : null;
  const con = info.console ? consoleView(info, token ? (buttons) => post("input", { buttons }) : null) : null;

  gdbView(token ? async (command) => {
    const r = await fetch(api + "/gdb", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Polydbg-Token": token },
      body: JSON.stringify({ command }),
    });
    return r.ok ? (await r.json()).output : await r.text();
  } : null);

  const es = new EventSource(api + "/events");
  es.addEventListener("state", (ev) => {
    const st = JSON.parse(ev.data);
    const badge = $("#state");
    badge.textContent = st.state + (st.reason ? " (" + st.reason + ")" : "");
    badge.className = "badge " + st.state;
    if (st.text) status(st.text);
    src.update(st);
    callsView(st);
    stackView(st.stack);
    varsView(api, st.scopes);
    if (flame && (st.state === "stopped" || st.state === "exited" || st.state === "terminated")) flame.load();
  });
  es.addEventListener("output", (ev) => out.add(JSON.parse(ev.data)));
  es.addEventListener("error", () => status(es.readyState === EventSource.CLOSED ? "the session is gone" : "reconnecting…"));
  es.addEventListener("open", () => status(""));
  if (mcu) {
    es.addEventListener("plot", (ev) => mcu.plot(JSON.parse(ev.data)));
    es.addEventListener("mcu", (ev) => mcu.device(JSON.parse(ev.data)));
  }
  if (con) {
    es.addEventListener("frame", (ev) => con.frame(JSON.parse(ev.data)));
    es.addEventListener("telemetry", (ev) => con.telemetry(JSON.parse(ev.data)));
  }
}

// sourceView shows the file of the current location with its breakpoints; a click on a
// line toggles a breakpoint there.
function sourceView(api, toggle) {
  const box = $("#source");
  const cache = new Map();
  let shown = "", rows = [], want = "";
  box.addEventListener("click", (e) => {
    const row = e.target.closest(".row");
    if (row) toggle(shown, Number(row.dataset.line));
  });
  async function load(file) {
    if (!cache.has(file)) {
      const r = await fetch(api + "/source?file=" + encodeURIComponent(file));
      cache.set(file, r.ok ? await r.text() : "(source not available: " + (await r.text()) + ")");
    }
    return cache.get(file);
  }
  let last = null;
  return {
    async update(st) {
      last = st;
      want = (st.location && st.location.file) || (st.stack[0] && st.stack[0].file) || shown || st.files[0] || "";
      if (want && want !== shown) {
        const text = await load(want);
        if (last !== st) return;
        shown = want;
        $("#file").textContent = shown;
        rows = text.split("\n").map((t, i) => {
          const row = el("div", "row");
          row.dataset.line = i + 1;
          row.append(el("span", "ln", String(i + 1)), el("span", "code", t));
          return row;
        });
        box.replaceChildren(...rows);
      }
      const bps = new Set(st.breakpoints.filter((b) => b.file === shown).map((b) => b.line));
      const cur = st.state === "stopped" && st.location && st.location.file === shown ? st.location.line : 0;
      rows.forEach((row, i) => {
        row.classList.toggle("bp", bps.has(i + 1));
        row.classList.toggle("current", cur === i + 1);
      });
      if (cur && rows[cur - 1]) rows[cur - 1].scrollIntoView({ block: "nearest" });
    },
  };
}

// outputView keeps the last OUTPUT_LINES lines and paints at most every PAINT_MS, however
// fast the program prints.
function outputView() {
  const pre = $("#output");
  let lines = [""], pending = [], pendingLen = 0, dropped = 0, scheduled = false;
  function paint() {
    scheduled = false;
    let text = pending.join("");
    pending = []; pendingLen = 0;
    let cut = text.length;
    for (let n = 0; n <= OUTPUT_LINES && cut > 0; n++) cut = text.lastIndexOf("\n", cut - 1);
    if (cut > 0) { lines = [""]; text = text.slice(cut + 1); } // only the tail can be shown
    const parts = text.split("\n");
    lines[lines.length - 1] += parts[0];
    for (let i = 1; i < parts.length; i++) lines.push(parts[i]);
    if (lines.length > OUTPUT_LINES) lines = lines.slice(lines.length - OUTPUT_LINES);
    const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.textContent = lines.join("\n");
    if (atEnd) pre.scrollTop = pre.scrollHeight;
    $("#dropped").textContent = dropped ? "(" + dropped + " bytes skipped)" : "";
  }
  return {
    add(m) {
      dropped += m.dropped;
      pending.push(m.text);
      pendingLen += m.text.length;
      while (pendingLen > PENDING_MAX && pending.length > 1) { // a hidden tab does not paint
        const d = pending.shift();
        pendingLen -= d.length;
        dropped += d.length;
      }
      if (!scheduled) { scheduled = true; setTimeout(() => requestAnimationFrame(paint), PAINT_MS); }
    },
  };
}

function stackView(stack) {
  const ol = $("#stack");
  ol.replaceChildren(...stack.map((f) => el("li", "", f.func + (f.file ? "  " + f.file.split("/").pop() + ":" + f.line : ""))));
}

// varsView shows the innermost frame's scopes; a variable with children expands on click.
function varsView(api, scopes) {
  const box = $("#vars");
  const items = [];
  for (const sc of scopes) {
    items.push(el("div", "scope", sc.name));
    for (const v of sc.vars) items.push(varNode(api, v));
  }
  box.replaceChildren(...items);
}

function varNode(api, v) {
  const node = el("div", "var");
  const line = el("div", "line");
  const tog = el("span", "toggle", v.ref ? "▸" : "");
  line.append(tog, el("span", "name", v.name), document.createTextNode(" = "), el("span", "value", v.value));
  if (v.type) line.append(el("span", "type", v.type));
  node.append(line);
  if (v.ref) {
    let kids = null;
    tog.addEventListener("click", async () => {
      if (kids) { kids.remove(); kids = null; tog.textContent = "▸"; return; }
      const r = await fetch(api + "/vars?ref=" + v.ref);
      if (!r.ok) { status(await r.text()); return; }
      kids = el("div", "children");
      for (const c of await r.json()) kids.append(varNode(api, c));
      node.append(kids);
      tog.textContent = "▾";
    });
  }
  return node;
}

// consoleView draws the console's frames on a canvas, charts its telemetry and sends the
// keys held down as the console's buttons.
function consoleView(info, send) {
  $("#consolebox").hidden = false;
  const screen = $("#screen");
  const ctx = screen.getContext("2d");
  const pal = info.palette.map((h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]);
  const img = ctx.createImageData(128, 128);
  const points = [];
  const keys = { ArrowLeft: 0, ArrowRight: 1, ArrowUp: 2, ArrowDown: 3, z: 4, x: 5, Enter: 6, Shift: 7 };
  let buttons = 0;
  const key = (down) => (e) => {
    const b = keys[e.key.length === 1 ? e.key.toLowerCase() : e.key];
    if (b === undefined || !send) return;
    e.preventDefault();
    const nb = down ? buttons | (1 << b) : buttons & ~(1 << b);
    if (nb !== buttons) { buttons = nb; send(buttons); }
  };
  screen.addEventListener("keydown", key(true));
  screen.addEventListener("keyup", key(false));
  screen.addEventListener("blur", () => { if (buttons && send) { buttons = 0; send(0); } });
  function chart() {
    const c = $("#telemetry"), g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    c.dataset.points = points.length;
    if (!points.length) return;
    c.dataset.last = points[points.length - 1].cycles;
    c.dataset.budget = points[points.length - 1].budget;
    const budget = points[points.length - 1].budget || 1;
    const top = Math.max(budget * 1.2, ...points.map((p) => p.cycles));
    const y = (v) => c.height - 4 - (v / top) * (c.height - 8);
    g.strokeStyle = "#d22"; g.beginPath(); g.moveTo(0, y(budget)); g.lineTo(c.width, y(budget)); g.stroke();
    g.strokeStyle = "#36c"; g.beginPath();
    points.forEach((p, i) => { const x = (i / Math.max(points.length - 1, 1)) * c.width; i ? g.lineTo(x, y(p.cycles)) : g.moveTo(x, y(p.cycles)); });
    g.stroke();
    g.fillStyle = "#333";
    g.fillText(points[points.length - 1].cycles + " / " + budget + " cycles", 4, 12);
  }
  return {
    frame(f) {
      const px = atob(f.px);
      for (let i = 0; i < px.length; i++) {
        const c = pal[px.charCodeAt(i) & 15];
        img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
      }
      ctx.putImageData(img, 0, 0);
      $("#frameno").textContent = "frame " + f.frame;
    },
    telemetry(list) {
      points.push(...list);
      if (points.length > 240) points.splice(0, points.length - 240);
      chart();
    },
  };
}

// flameView draws the Kite profile as a flame graph: click a frame to zoom into it, type to
// highlight the frames whose name matches.
function flameView(api) {
  $("#flamebox").hidden = false;
  const box = $("#flame");
  let root = null, zoom = null, loading = false;
  const ROW = 17;
  function depth(n) { return 1 + Math.max(0, ...(n.c || []).map(depth)); }
  function render() {
    if (!root) return;
    const z = zoom || root;
    const q = $("#flamesearch").value.trim().toLowerCase();
    const d = depth(z);
    box.style.height = (d * ROW + 4) + "px";
    const divs = [];
    const draw = (n, x, w, level) => {
      if (w < 0.1) return; // narrower than a thousandth of the width: not drawn
      const f = el("div", "f" + (q && n.n.toLowerCase().includes(q) ? " match" : ""), n.n);
      f.style.left = x + "%"; f.style.width = w + "%"; f.style.top = ((d - level - 1) * ROW) + "px";
      f.title = n.n + " — " + (n.v / 1e6).toFixed(3) + " ms (" + (100 * n.v / root.v).toFixed(1) + "%)";
      f.addEventListener("click", () => { zoom = n; render(); });
      divs.push(f);
      let cx = x;
      for (const c of n.c || []) {
        const cw = n.v ? (w * c.v) / n.v : 0;
        draw(c, cx, cw, level + 1);
        cx += cw;
      }
    };
    draw(z, 0, 100, 0);
    box.replaceChildren(...divs);
    $("#flameinfo").textContent = (root.v / 1e6).toFixed(3) + " ms profiled";
  }
  $("#flamesearch").addEventListener("input", render);
  $("#flamereset").addEventListener("click", () => { zoom = null; render(); });
  return {
    async load() {
      if (loading) return;
      loading = true;
      try {
        const r = await fetch(api + "/profile");
        if (r.ok) { const p = await r.json(); root = p.root; zoom = null; render(); timelineView(p.timeline); }
      } finally { loading = false; }
    },
  };
}

// timelineView draws the profile's timeline: one lane per function, in the order they first
// ran, a bar for each run of its statements at the time it ran. Hover a bar for its details.
function timelineView(tl) {
  if (!tl) return;
  $("#timelinebox").hidden = false;
  const ROW = 16;
  const lanes = $("#lanes"), c = $("#timelinecanvas");
  lanes.replaceChildren(...tl.funcs.map((f) => el("div", "lane", f)));
  c.style.height = Math.max(tl.funcs.length, 1) * ROW + "px";
  c.width = Math.max(c.clientWidth, 100);
  c.height = Math.max(tl.funcs.length, 1) * ROW;
  const g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const colors = ["#e8833a", "#3a7be8", "#3ab36b", "#c84ad6", "#d6b84a", "#4ac8d6", "#d64a6b", "#7a6bd6"];
  const x = (ns) => tl.ns ? (ns / tl.ns) * c.width : 0;
  for (const sg of tl.segments) {
    g.fillStyle = colors[sg.f % colors.length];
    g.fillRect(x(sg.s), sg.f * ROW + 2, Math.max(x(sg.s + sg.d) - x(sg.s), 1), ROW - 4);
  }
  c.dataset.segments = tl.segments.length;
  let info = tl.segments.length + " runs, " + (tl.ns / 1e6).toFixed(3) + " ms";
  if (tl.dropped) info += " (the first statements only: " + tl.dropped + " later ones not recorded)";
  if (tl.truncated) info += " (" + tl.truncated + " statements not drawn)";
  $("#timelineinfo").textContent = info;
  c.onmousemove = (e) => {
    const r = c.getBoundingClientRect();
    const lane = Math.floor((e.clientY - r.top) / ROW);
    const at = ((e.clientX - r.left) / r.width) * tl.ns;
    const sg = tl.segments.find((s) => s.f === lane && s.s <= at && at <= s.s + s.d);
    $("#timelinehover").textContent = sg ? tl.funcs[sg.f] + " from line " + sg.l + ": " + sg.n + " statements, " + (sg.d / 1e6).toFixed(3) + " ms at " + (sg.s / 1e6).toFixed(3) + " ms" : "";
  };
}

// mcuView shows a firmware session's device telemetry: a live chart per plot line (RTT
// Teleplot lines and sampled variables), the sampled variables' values, and the RTOS tasks.
function mcuView(sample) {
  $("#mcubox").hidden = false;
  const KEEP = 600;
  const charts = new Map();
  let scheduled = false;
  const dirty = new Set();
  const form = $("#sampleform");
  if (!sample) for (const e of form.elements) e.disabled = true;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("#samplename").value.trim();
    if (name && sample) sample(name, Number($("#sampleperiod").value) || 100);
  });
  function chart(name) {
    let c = charts.get(name);
    if (c) return c;
    const box = el("div", "plot"), head = el("div", "plothead");
    const last = el("span", "plotlast");
    head.append(el("span", "plotname", name), last);
    const canvas = el("canvas");
    canvas.width = 384; canvas.height = 56;
    canvas.dataset.name = name;
    box.append(head, canvas);
    $("#plots").append(box);
    c = { points: [], canvas, last };
    charts.set(name, c);
    return c;
  }
  function draw(c) {
    const g = c.canvas.getContext("2d"), W = c.canvas.width, H = c.canvas.height, p = c.points;
    g.clearRect(0, 0, W, H);
    c.canvas.dataset.points = p.length;
    if (!p.length) return;
    const lo = Math.min(...p.map((q) => q[1])), hi = Math.max(...p.map((q) => q[1]));
    const t0 = p[0][0], t1 = p[p.length - 1][0];
    const x = (t) => t1 > t0 ? ((t - t0) / (t1 - t0)) * (W - 2) + 1 : W / 2;
    const y = (v) => hi > lo ? H - 3 - ((v - lo) / (hi - lo)) * (H - 6) : H / 2;
    g.strokeStyle = "#36c"; g.beginPath();
    p.forEach((q, i) => i ? g.lineTo(x(q[0]), y(q[1])) : g.moveTo(x(q[0]), y(q[1])));
    g.stroke();
    g.fillStyle = "#999";
    g.fillText(String(hi), 2, 10); g.fillText(String(lo), 2, H - 2);
    c.last.textContent = String(p[p.length - 1][1]);
  }
  function paint() {
    scheduled = false;
    for (const c of dirty) draw(c);
    dirty.clear();
  }
  return {
    plot(m) {
      for (const name of m.order) {
        const pts = m.series[name];
        if (!pts) continue;
        const c = chart(name);
        c.points.push(...pts);
        if (c.points.length > KEEP) c.points.splice(0, c.points.length - KEEP);
        dirty.add(c);
      }
      $("#plotinfo").textContent = m.lost ? "(" + m.lost + " points of further lines not kept)" : "";
      if (!scheduled) { scheduled = true; setTimeout(() => requestAnimationFrame(paint), PAINT_MS); }
    },
    device(m) {
      $("#mcuvars tbody").replaceChildren(...m.vars.map((v) => {
        const tr = el("tr");
        tr.append(el("td", "name", v.name), el("td", "value", v.value), el("td", "type", v.type || ""));
        return tr;
      }));
      $("#tasks tbody").replaceChildren(...m.tasks.map((t) => {
        const tr = el("tr", t.name === m.current ? "current" : "");
        tr.append(el("td", "name", t.name), el("td", "state", t.state), el("td", "", String(t.priority)),
          el("td", "", t.stackSize ? t.stackUsage + " / " + t.stackSize + " B" : ""));
        return tr;
      }));
      $("#curtask").textContent = m.current ? "(running: " + m.current + ")" : "";
      $("#taskstitle").textContent = m.tasks.length && m.tasks.every((t) => t.kind === "thread") ? "Threads" : "RTOS tasks";
    },
  };
}

// gdbView is the gdb console: a command typed and its answer, as text (never markup), the
// last 64 KiB kept. Without control of the session (no token) it is read-only.
function gdbView(run) {
  const out = $("#gdbout"), form = $("#gdbform"), line = $("#gdbline");
  if (!run) {
    form.hidden = true;
    out.textContent = "gdb commands need control of this session.";
    return;
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const command = line.value;
    line.value = "";
    const answer = await run(command);
    out.textContent = (out.textContent + "(gdb) " + command + "\n" + answer).slice(-65536);
    out.scrollTop = out.scrollHeight;
  });
}
