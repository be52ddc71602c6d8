/* kexplain's page: the interactive parts of an explanation, read from the trace itself.
 *
 * The page's data (#kx-data) is the document as `kexplain -o json` writes it, packed (repeated
 * values written once: kexplain/render/html/pack.py), with the plugins' facts in words per node.
 * Everything here is computed from it in the browser: the table of every node (sorted and
 * filtered; only the rows in view are drawn, so 5,000 nodes scroll as 50 do), each node's full
 * verdict in a panel, the drawing of the search, where many pods went. No request leaves the
 * page. Written by hand, no build step, no library.
 */
(function () {
  "use strict";

  // -- the data ------------------------------------------------------------------------------------

  var REF = 0xa7; // the section sign: a string starting with it refers to a table entry

  function unpack(packed) {
    var table = [];
    function resolve(v) {
      if (typeof v === "string") {
        if (v.charCodeAt(0) !== REF) return v;
        if (v.charCodeAt(1) === REF) return v.slice(1);
        return table[parseInt(v.slice(1), 36)];
      }
      if (Array.isArray(v)) {
        for (var i = 0; i < v.length; i++) v[i] = resolve(v[i]);
        return v;
      }
      if (v !== null && typeof v === "object") {
        for (var k in v) if (Object.prototype.hasOwnProperty.call(v, k)) v[k] = resolve(v[k]);
      }
      return v;
    }
    for (var i = 0; i < packed.t.length; i++) table.push(resolve(packed.t[i]));
    return resolve(packed.r);
  }

  var DATA = unpack(JSON.parse(document.getElementById("kx-data").textContent));
  var DOC = DATA.doc;
  var KIND = DATA.kind;
  var TRACES = KIND === "trace" ? [DOC] : KIND === "list" ? (DOC.items || []) :
    [].concat.apply([], (DOC.explanations || []).map(function (e) { return e.items || []; }));
  var EXTRA = DATA.extra || [];
  document.body.classList.remove("nojs");
  document.body.classList.add("js");

  // -- small helpers -------------------------------------------------------------------------------

  function h(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k)) continue;
        var v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "text") e.textContent = v;
        else if (k === "cls") e.className = v;
        else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }

  function add(parent, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(parent, c); }); return; }
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  function num(n) { return typeof n === "number" ? n.toLocaleString("en-US") : String(n); }
  function plural(n, word) { return num(n) + " " + word + (n === 1 ? "" : "s"); }
  function podName(t) { return t.pod.namespace + "/" + t.pod.name; }
  // A pod's verdict as the scheduler's queue leaves it: its `queue` answer's where the pods ahead
  // change it, else its own (kexplain.explain.queue_order.in_queue): what the text's list says.
  function inQueue(t) { return t.queue ? t.queue.result : t.result; }
  function own(o, k) { return o !== null && o !== undefined && Object.prototype.hasOwnProperty.call(o, k); }

  var REJECTED = { Unschedulable: 1, UnschedulableAndUnresolvable: 1, Pending: 1 };
  var CODE_MARK = { Success: "\u2713", Skip: "\u2013", Error: "\u26a0" };
  function codeMark(code) { return REJECTED[code] ? "\u2717" : (CODE_MARK[code] || "\u00b7"); }

  // Kubernetes quantities ("35900m", "72Gi", "1e3") as numbers, for free cpu and memory.
  var SUFFIX = { m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 1024, Mi: Math.pow(1024, 2), Gi: Math.pow(1024, 3), Ti: Math.pow(1024, 4), Pi: Math.pow(1024, 5),
    Ei: Math.pow(1024, 6) };
  function quantity(s) {
    if (s === null || s === undefined) return NaN;
    var m = /^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/.exec(String(s));
    if (!m) return NaN;
    var v = parseFloat(m[1]);
    if (m[2] !== undefined) return v * Math.pow(10, parseInt(m[2], 10));
    return v * SUFFIX[m[3] || ""];
  }
  function fmtCpu(v) {
    if (isNaN(v)) return "";
    if (Math.abs(v) < 1 && v !== 0) return Math.round(v * 1000) + "m";
    return String(Math.round(v * 1000) / 1000);
  }
  function fmtBytes(v) {
    if (isNaN(v)) return "";
    var units = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"], i = 0, a = Math.abs(v);
    while (a >= 1024 && i < units.length - 1) { a /= 1024; v /= 1024; i++; }
    return (Math.round(v * 100) / 100) + units[i];
  }

  // -- one trace, read ------------------------------------------------------------------------------

  // A node's status in the table: its mark (never colour alone), its label, and its order.
  var STATUS = {
    chosen: ["\u2605", "picked", 0], selected: ["\u2606", "tied at the top", 1], feasible: ["\u2713", "feasible", 2],
    dropped: ["\u25d0", "feasible, dropped", 3], passed: ["\u2713", "passed Filter", 4],
    error: ["\u26a0", "Filter error", 5], rejected: ["\u2717", "rejected", 6],
    unexamined: ["\u25cb", "never examined", 7], outside: ["\u2013", "outside PreFilter's nodes", 8],
    notrun: ["\u2013", "not examined", 9]
  };

  var models = {};

  function model(i) {
    if (models[i]) return models[i];
    var t = TRACES[i];
    var details = t.details || {};
    var facts = details.nodes || {};
    var filter = t.filter || {};
    var filterAll = t.filterAll || {};
    var score = t.score || {};
    var search = t.search;
    var result = t.result || {};
    var extra = t.unexamined || {};
    var order = (search && search.order) || [];
    var visit = {};
    order.forEach(function (n, k) { if (!own(visit, n)) visit[n] = k + 1; });
    var names = [];
    var seen = {};
    function addName(n) { if (!own(seen, n)) { seen[n] = 1; names.push(n); } }
    order.forEach(addName);
    (extra.nodes || []).forEach(addName);
    Object.keys(facts).forEach(function (n) { if (facts[n] && facts[n].exists !== false) addName(n); });
    Object.keys(filter).forEach(addName);

    var ranked = Object.keys(score).sort(function (a, b) {
      return (score[b].total - score[a].total) || ((a === result.suggestedHost) ? -1 : (b === result.suggestedHost) ? 1 : 0) ||
        (a < b ? -1 : a > b ? 1 : 0);
    });
    var rank = {};
    ranked.forEach(function (n, k) { rank[n] = k + 1; });
    var selected = {};
    (result.selectedNodes || []).forEach(function (n) { selected[n] = 1; });
    var plugins = [];
    ranked.forEach(function (n) {
      Object.keys(score[n].plugins || {}).forEach(function (p) { if (plugins.indexOf(p) < 0) plugins.push(p); });
    });
    var dropped = null;
    if (search && search.numFilterSuccess > search.numFeasibleNodesToFind && order.length) dropped = order[order.length - 1];
    if (extra.dropped) dropped = extra.dropped;
    var narrowed = t.preFilterNodeNames;
    var inNarrowed = {};
    (narrowed || []).forEach(function (n) { inNarrowed[n] = 1; });
    var pre = !search && t.preFilter ? t.preFilter.filter(function (p) { return REJECTED[p.code] || p.code === "Error"; })[0] : null;
    var podRequests = (details.pod || {}).requests || {};

    var rows = names.map(function (n) {
      var f = facts[n] || {};
      var first = filter[n];
      var status;
      if (first) {
        if (first.code === "Error") status = "error";
        else if (REJECTED[first.code]) status = "rejected";
        else if (n === result.suggestedHost) status = t.tieBreak === "random" ? "selected" : "chosen"; // a random pick: one of the tied
        else if (selected[n] && (own(score, n) || result.status === "Scheduled")) status = "selected";
        else if (own(score, n)) status = "feasible";
        else if (n === dropped) status = "dropped";
        else if (result.status === "Scheduled" && (result.selectedNodes || []).indexOf(n) >= 0) status = "chosen";
        else status = "passed";
      } else if (!search) status = "notrun";
      else if (narrowed && !inNarrowed[n]) status = "outside";
      else status = "unexamined";
      var every = filterAll[n] || f.filterAll || null;
      var would = (extra.filter || {})[n];
      var reasons = [];
      var rejectedBy = {};
      if (every) {
        Object.keys(every).forEach(function (p) {
          var st = every[p];
          if (REJECTED[st.code] || st.code === "Error") {
            rejectedBy[p] = 1;
            (st.reasons && st.reasons.length ? st.reasons : [st.code]).forEach(function (r) { reasons.push([p, r]); });
          }
        });
      }
      if (first && (REJECTED[first.code] || first.code === "Error") && !rejectedBy[first.plugin]) {
        rejectedBy[first.plugin] = 1;
        (first.reasons || [first.code]).forEach(function (r) { reasons.push([first.plugin, r]); });
      }
      if (!every && !first && would && would.code !== "Success") {
        rejectedBy[would.plugin] = 1;
        (would.reasons || [would.code]).forEach(function (r) { reasons.push([would.plugin, r]); });
      }
      var res = f.resources || {};
      var freeCpu = res.cpu ? quantity(res.cpu.allocatable) - quantity(res.cpu.requested) : NaN;
      var freeMem = res.memory ? quantity(res.memory.allocatable) - quantity(res.memory.requested) : NaN;
      var sc = score[n];
      var scores = {};
      if (sc) plugins.forEach(function (p) { scores[p] = sc.plugins[p] ? sc.plugins[p].weighted : null; });
      var reported = first && (REJECTED[first.code] || first.code === "Error") ? first :
        (!first && would && would.code !== "Success" ? would : null);
      return {
        name: n, status: status, zone: f.zone || "", visit: visit[n] || null, rank: rank[n] || null,
        total: sc ? sc.total : null,
        wouldTotal: own(extra.totals || {}, n) ? extra.totals[n] : null,
        scores: scores, freeCpu: freeCpu, freeMem: freeMem, reported: reported, reasons: reasons,
        rejectedBy: rejectedBy, would: would || null, cordoned: !!f.unschedulable
      };
    });
    var byName = {};
    rows.forEach(function (r) { byName[r.name] = r; });
    models[i] = {
      i: i, trace: t, rows: rows, byName: byName, plugins: plugins, ranked: ranked, rank: rank, dropped: dropped,
      pre: pre, narrowed: narrowed, podRequests: podRequests, words: (EXTRA[i] || {}).words || {},
      tie: (EXTRA[i] || {}).tie || "the node the scheduler picks", selectors: (EXTRA[i] || {}).selectors || {}
    };
    return models[i];
  }

  // A node's verdict in one sentence (what `--node` says first).
  function verdictOf(m, r) {
    var t = m.trace, result = t.result;
    if (r.status === "notrun") {
      if (m.pre) return "Not examined: PreFilter plugin " + m.pre.plugin + " rejected the pod for every node: " +
        (m.pre.reasons || []).join("; ");
      return "Not examined: the scheduling cycle never reached the nodes.";
    }
    if (r.status === "outside") return "Never examined: not among the nodes PreFilter narrowed the search to.";
    if (r.status === "unexamined") {
      var s = "Never examined: the search stopped before it (it had found enough feasible nodes, or the node tried " +
        "first fit).";
      if (r.would && r.would.code !== "Success") {
        return s + " Had it been, " + r.would.plugin + " would have rejected it: " + (r.would.reasons || []).join("; ") + ".";
      }
      if (r.wouldTotal !== null) {
        var w = (t.unexamined || {}).winner || {};
        if (r.wouldTotal === w.total) {
          return s + " It would have passed Filter and, scored together with the others, got " + r.wouldTotal +
            ": as much as the winner " + w.node + ", a tie that would go to " + m.tie + ".";
        }
        var cmp = r.wouldTotal > w.total ? "higher than" : "lower than";
        return s + " It would have passed Filter and, scored together with the others, got " + r.wouldTotal + ": " +
          cmp + " the winner " + w.node + " (" + w.total + ").";
      }
      if (r.would) return s + " It would have passed Filter.";
      return s;
    }
    var first = t.filter[r.name];
    if (r.status === "error") {
      return "Filter failed with an error here: " + first.plugin + ": " + (first.reasons || []).join("; ") +
        " \u2013 the scheduler stopped at this node and the cycle ended with the error.";
    }
    if (r.status === "rejected") {
      return "Rejected by " + first.plugin + " (" + first.code + "): " + (first.reasons || []).join("; ") +
        " \u2013 the reason the scheduler reports for this node (\u2605 below).";
    }
    if (r.rank) {
      var line = "Feasible: rank " + r.rank + " of " + m.ranked.length + ", score " + r.total;
      if (r.status === "chosen") line += " \u2013 the scheduler picks it";
      else if (r.status === "selected") line += " \u2013 tied at the top: the tie goes to " + m.tie;
      return line + ".";
    }
    if (r.status === "chosen") return "Feasible: the only feasible node found, so not scored: the pod goes here.";
    if (r.status === "dropped") {
      return "Feasible, but found after the search already had enough feasible nodes: dropped, not scored " +
        "(first in line for the next pod).";
    }
    if (result.status === "Error") return "Passed Filter; not scored: the cycle ended with the error.";
    return "Passed Filter.";
  }

  // -- a table of many rows: only the rows in view are drawn ---------------------------------------

  var ROW_H = 30;

  function Grid(opts) {
    var self = this;
    this.columns = opts.columns;
    this.onOpen = opts.onOpen;
    this.empty = opts.empty || "No row matches.";
    this.all = opts.rows;
    this.rows = opts.rows.slice();
    this.sortKey = opts.sort || null;
    this.sortDir = opts.sortDir || 1;
    this.active = 0;
    this.rowH = ROW_H; // measured once a row is drawn
    this.height = opts.height || 420;
    this.scroller = h("div", { cls: "grid-scroll", style: "max-height:" + this.height + "px" });
    this.table = h("table", { cls: "grid", "aria-label": opts.label, "aria-rowcount": this.rows.length + 1 });
    this.head = h("tr", { "aria-rowindex": 1 });
    this.columns.forEach(function (c, k) {
      var th = h("th", { scope: "col", cls: c.num ? "num" : null, title: c.title || null });
      var b = h("button", { type: "button", text: c.label, onclick: function () { self.sortBy(k); } });
      th.appendChild(b);
      c.th = th;
      self.head.appendChild(th);
    });
    this.body = h("tbody");
    this.table.appendChild(h("thead", null, this.head));
    this.table.appendChild(this.body);
    this.scroller.appendChild(this.table);
    this.root = this.scroller;
    var pending = false;
    this.scroller.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; self.draw(true); });
    });
    this.body.addEventListener("keydown", function (e) { self.key(e); });
    this.body.addEventListener("click", function (e) {
      var tr = e.target.closest("tr[data-row]");
      if (!tr || e.target.closest("a")) return;
      self.active = +tr.getAttribute("data-row");
      self.open(tr);
    });
    this.body.addEventListener("focusin", function (e) {
      var tr = e.target.closest("tr[data-row]");
      if (tr) self.active = +tr.getAttribute("data-row");
    });
    if (this.sortKey !== null) this.applySort();
    this.markSort();
  }

  Grid.prototype.value = function (row, k) {
    var c = this.columns[k];
    return c.sort ? c.sort(row) : c.get(row);
  };

  Grid.prototype.sortBy = function (k) {
    if (this.sortKey === k) this.sortDir = -this.sortDir;
    else { this.sortKey = k; this.sortDir = this.columns[k].num && !this.columns[k].asc ? -1 : 1; }
    this.applySort();
    this.markSort();
    this.active = 0;
    this.scroller.scrollTop = 0;
    this.draw();
  };

  Grid.prototype.applySort = function () {
    var k = this.sortKey, dir = this.sortDir, self = this;
    var keyed = this.rows.map(function (r, idx) { return [self.value(r, k), idx, r]; });
    keyed.sort(function (a, b) {
      var x = a[0], y = b[0];
      var xe = x === null || x === undefined || x === "" || (typeof x === "number" && isNaN(x));
      var ye = y === null || y === undefined || y === "" || (typeof y === "number" && isNaN(y));
      if (xe || ye) return xe && ye ? a[1] - b[1] : xe ? 1 : -1; // empty cells last, either way
      if (x < y) return -dir;
      if (x > y) return dir;
      return a[1] - b[1];
    });
    this.rows = keyed.map(function (e) { return e[2]; });
  };

  Grid.prototype.markSort = function () {
    var self = this;
    this.columns.forEach(function (c, k) {
      if (k === self.sortKey) c.th.setAttribute("aria-sort", self.sortDir > 0 ? "ascending" : "descending");
      else c.th.removeAttribute("aria-sort");
    });
  };

  Grid.prototype.setRows = function (rows) {
    this.rows = rows.slice();
    if (this.sortKey !== null) this.applySort();
    this.table.setAttribute("aria-rowcount", this.rows.length + 1);
    this.active = 0; // other rows: from the top
    this.scroller.scrollTop = 0;
    this.draw();
  };

  // Draw the rows in view (and a few around them); `scrolled`: only when they are other rows
  // than those drawn (a scroll within them leaves the rows, and the focus, as they are).
  Grid.prototype.draw = function (scrolled) {
    var rowH = this.rowH;
    var top = this.scroller.scrollTop;
    var headH = this.head.offsetHeight || rowH;
    var view = Math.max(this.scroller.clientHeight, this.height); // an empty table is short: fill its most
    var first = Math.max(0, Math.floor((top - headH) / rowH) - 5);
    var last = Math.min(this.rows.length, Math.ceil((top + view) / rowH) + 5);
    if (scrolled === true && this.drawn === first + ":" + last) return;
    this.drawn = first + ":" + last;
    var hadFocus = this.body.contains(document.activeElement);
    var n = this.columns.length;
    var frag = document.createDocumentFragment();
    if (first > 0) frag.appendChild(h("tr", { cls: "spacer", "aria-hidden": "true" }, h("td", { colspan: n, style: "height:" + first * rowH + "px" })));
    for (var k = first; k < last; k++) {
      var row = this.rows[k];
      var tr = h("tr", { "data-row": k, "aria-rowindex": k + 2, tabindex: k === this.active ? 0 : -1, cls: row.cls || null });
      for (var c = 0; c < n; c++) {
        var col = this.columns[c];
        var v = col.show ? col.show(row) : col.get(row);
        tr.appendChild(h("td", { cls: col.num ? "num" : col.cls || null, title: typeof v === "string" && v.length > 40 ? v : null }, v));
      }
      frag.appendChild(tr);
    }
    if (last < this.rows.length) {
      frag.appendChild(h("tr", { cls: "spacer", "aria-hidden": "true" }, h("td", { colspan: n, style: "height:" + (this.rows.length - last) * rowH + "px" })));
    }
    if (!this.rows.length) frag.appendChild(h("tr", null, h("td", { colspan: n, cls: "empty", text: this.empty })));
    this.body.textContent = "";
    this.body.appendChild(frag);
    var drawn = this.body.querySelector("tr[data-row]");
    var measured = drawn ? drawn.getBoundingClientRect().height : 0;
    if (measured > 0 && Math.abs(measured - this.rowH) > 0.5) { // the spacers must match the rows
      this.rowH = measured;
      this.draw();
      return;
    }
    if (hadFocus) this.focusActive();
  };

  Grid.prototype.focusActive = function () {
    var tr = this.body.querySelector('tr[data-row="' + this.active + '"]');
    if (tr) tr.focus({ preventScroll: true });
  };

  Grid.prototype.reveal = function () {
    var rowH = this.rowH;
    var headH = this.head.offsetHeight || rowH;
    var y = headH + this.active * rowH;
    var view = this.scroller.clientHeight;
    if (y - headH < this.scroller.scrollTop) this.scroller.scrollTop = y - headH;
    else if (y + rowH > this.scroller.scrollTop + view) this.scroller.scrollTop = y + rowH - view;
    this.draw();
    this.focusActive();
  };

  Grid.prototype.key = function (e) {
    var page = Math.max(1, Math.floor((this.scroller.clientHeight || this.height) / this.rowH) - 1);
    var to = null;
    switch (e.key) {
      case "ArrowDown": to = this.active + 1; break;
      case "ArrowUp": to = this.active - 1; break;
      case "PageDown": to = this.active + page; break;
      case "PageUp": to = this.active - page; break;
      case "Home": to = 0; break;
      case "End": to = this.rows.length - 1; break;
      case "Enter": case " ":
        e.preventDefault();
        this.open(e.target.closest("tr[data-row]"));
        return;
      default: return;
    }
    e.preventDefault();
    this.active = Math.max(0, Math.min(this.rows.length - 1, to));
    this.reveal();
  };

  Grid.prototype.open = function (tr) {
    var row = this.rows[this.active];
    if (row && this.onOpen) this.onOpen(row, tr);
  };

  // -- the node table -------------------------------------------------------------------------------

  var SHORT = { NodeResourcesFit: "Fit", NodeResourcesBalancedAllocation: "Balanced", TaintToleration: "Taint",
    NodeAffinity: "NodeAff", InterPodAffinity: "PodAff", PodTopologySpread: "Spread", ImageLocality: "Image",
    VolumeBinding: "Volume", DynamicResources: "DRA" };

  function statusCell(r) {
    var s = STATUS[r.status];
    return h("span", { cls: "st st-" + r.status }, s[0] + " " + s[1]);
  }

  // Node, status and why first: what a narrow window shows without scrolling sideways.
  function nodeColumns(m) {
    var cols = [
      { label: "Node", get: function (r) { return r.name; }, asc: true },
      { label: "Status", get: function (r) { return STATUS[r.status][2]; }, show: statusCell, num: false },
      { label: "Why", cls: "why", get: function (r) { return r.reported ? r.reported.plugin + ": " + (r.reported.reasons || []).join("; ") : ""; },
        show: function (r) {
          if (!r.reported) return "";
          var more = Object.keys(r.rejectedBy).length - 1;
          return (r.status === "unexamined" ? "would be: " : "") + r.reported.plugin + ": " +
            (r.reported.reasons || [r.reported.code]).join("; ") + (more > 0 ? " (+" + more + " plugin" + (more > 1 ? "s" : "") + ")" : "");
        },
        title: "The first failing plugin (what the scheduler reports) and how many other plugins reject the node" },
      { label: "Rank", num: true, asc: true, get: function (r) { return r.rank; },
        title: "The node's place among the scored nodes (1 = best)" },
      { label: "Score", num: true, get: function (r) { return r.total !== null ? r.total : r.wouldTotal; },
        show: function (r) { return r.total !== null ? num(r.total) : r.wouldTotal !== null ? "(" + r.wouldTotal + ")" : ""; },
        title: "The sum of the plugins' weighted scores; in brackets what a never-examined node would have scored" }
    ];
    m.plugins.forEach(function (p) {
      cols.push({ label: SHORT[p] || p, title: p + ": weighted score", num: true,
        get: function (r) { return own(r.scores, p) ? r.scores[p] : null; } });
    });
    cols.push(
      { label: "Zone", get: function (r) { return r.zone; }, asc: true },
      { label: "Free CPU", num: true, get: function (r) { return r.freeCpu; }, show: function (r) { return fmtCpu(r.freeCpu); },
        title: "Allocatable CPU less what the node's pods request" },
      { label: "Free memory", num: true, get: function (r) { return r.freeMem; }, show: function (r) { return fmtBytes(r.freeMem); },
        title: "Allocatable memory less what the node's pods request" },
      { label: "Visited", num: true, asc: true, get: function (r) { return r.visit; },
        title: "The node's place in the search's visiting order" }
    );
    return cols;
  }

  function options(select, values, all) {
    select.appendChild(h("option", { value: "", text: all }));
    values.forEach(function (v) { select.appendChild(h("option", { value: v[0], text: v[1] })); });
  }

  function mountNodes(section, i) {
    var mount = section.querySelector('[data-mount="nodes"]');
    var m = model(i);
    if (!mount || !m.rows.length) return;
    var byStatus = counts(m.rows, function (r) { return r.status; });
    var statuses = Object.keys(STATUS).filter(function (s) { return byStatus[s]; });
    var zones = {}, plugins = {}, reasons = {};
    m.rows.forEach(function (r) {
      if (r.zone) zones[r.zone] = (zones[r.zone] || 0) + 1;
      Object.keys(r.rejectedBy).forEach(function (p) { plugins[p] = (plugins[p] || 0) + 1; });
      r.reasons.forEach(function (pr) { var k = pr[0] + ": " + pr[1]; reasons[k] = (reasons[k] || 0) + 1; });
    });
    var fStatus = h("select", { id: "t" + i + "-f-status" });
    options(fStatus, statuses.map(function (s) { return [s, STATUS[s][0] + " " + STATUS[s][1] + " (" + num(byStatus[s]) + ")"]; }), "any status");
    var fPlugin = h("select", { id: "t" + i + "-f-plugin" });
    options(fPlugin, Object.keys(plugins).sort().map(function (p) { return [p, p + " (" + num(plugins[p]) + ")"]; }), "any plugin");
    var fReason = h("select", { id: "t" + i + "-f-reason" });
    options(fReason, Object.keys(reasons).sort(function (a, b) { return reasons[b] - reasons[a] || (a < b ? -1 : 1); })
      .map(function (k) { return [k, k + " (" + num(reasons[k]) + ")"]; }), "any reason");
    var fZone = h("select", { id: "t" + i + "-f-zone" });
    options(fZone, Object.keys(zones).sort().map(function (z) { return [z, z + " (" + num(zones[z]) + ")"]; }), "any zone");
    var fName = h("input", { type: "search", id: "t" + i + "-f-name", placeholder: "part of a name", autocomplete: "off" });
    var shown = h("p", { cls: "count", "aria-live": "polite", id: "t" + i + "-count" });
    var reset = h("button", { type: "button", text: "Show every node" });
    function label(text, ctl) { return h("label", null, text + " ", ctl); }
    var filters = h("div", { cls: "filters", role: "search", "aria-label": "Filter the nodes" },
      label("Status", fStatus), label("Rejected by", fPlugin), label("Reason", fReason),
      Object.keys(zones).length ? label("Zone", fZone) : null, label("Name", fName), reset);
    var columns = nodeColumns(m).filter(function (c, k) { // a column without a value in any row says nothing
      return k < 2 || m.rows.some(function (r) {
        var v = c.get(r);
        return !(v === null || v === undefined || v === "" || (typeof v === "number" && isNaN(v)));
      });
    });
    var grid = new Grid({
      columns: columns, rows: m.rows, sort: 1, sortDir: 1, label: "Every node of pod " + podName(m.trace),
      onOpen: function (r) { openNode(i, r.name, function () { grid.reveal(); }); } // its row may be drawn anew by then
    });
    // Status, then score (best first), then visiting order: the default view.
    grid.columns[1].sort = function (r) {
      return STATUS[r.status][2] * 1e7 + (r.rank || (r.total === null && r.wouldTotal !== null ? 1e6 - r.wouldTotal : 0)) * 1e-1 +
        (r.visit || 0) * 1e-6;
    };
    grid.applySort();
    function apply() {
      var s = fStatus.value, p = fPlugin.value, rs = fReason.value, z = fZone.value, q = fName.value.trim().toLowerCase();
      var rows = m.rows.filter(function (r) {
        if (s && r.status !== s) return false;
        if (p && !r.rejectedBy[p]) return false;
        if (z && r.zone !== z) return false;
        if (q && r.name.toLowerCase().indexOf(q) < 0) return false;
        if (rs && !r.reasons.some(function (pr) { return pr[0] + ": " + pr[1] === rs; })) return false;
        return true;
      });
      grid.setRows(rows);
      shown.textContent = "Showing " + num(rows.length) + " of " + plural(m.rows.length, "node") +
        (rows.length ? ". Select a row (Enter) for the node's full verdict." : ".");
    }
    [fStatus, fPlugin, fReason, fZone].forEach(function (c) { c.addEventListener("change", apply); });
    fName.addEventListener("input", apply);
    reset.addEventListener("click", function () {
      fStatus.value = fPlugin.value = fReason.value = fZone.value = fName.value = "";
      apply();
    });
    var legend = h("p", { cls: "note" }, "Status marks: ", statuses.map(function (s, k) {
      return [k ? ", " : "", h("span", { cls: "st st-" + s }, STATUS[s][0] + " " + STATUS[s][1])];
    }), ". Column headers sort (again: the other way).");
    mount.appendChild(h("div", { cls: "nodes" }, filters, shown, grid.root, legend));
    apply();
    section.querySelectorAll(".static-nodes").forEach(function (e) {
      var note = e.nextElementSibling;
      e.classList.add("print-only");
      if (note && note.classList.contains("note")) note.classList.add("print-only");
    });
    section.kxGrid = grid;
  }

  // -- one node's full verdict ----------------------------------------------------------------------

  var panel = document.getElementById("panel");
  var returnTo = null;

  function wordsList(lines) {
    if (!lines || !lines.length) return null;
    return h("ul", { cls: "words" }, lines.map(function (w) {
      var depth = w.length - w.replace(/^ +/, "").length;
      return h("li", { style: depth ? "margin-left:" + depth / 2 + "em" : null }, w.replace(/^ +/, ""));
    }));
  }

  function filterPart(m, r, facts) {
    var t = m.trace;
    var every = (t.filterAll || {})[r.name] || facts.filterAll;
    var first = (t.filter || {})[r.name] || {};
    var words = m.words[r.name] || {};
    var plugins = every ? Object.keys(every) : Object.keys(words);
    if (!plugins.length) return null;
    var ownPlugin = REJECTED[first.code] || first.code === "Error" ? first.plugin : null;
    var skipped = [];
    var rows = [];
    plugins.forEach(function (p) {
      var st = every ? every[p] : null;
      var w = (words[p] || [[], []])[0];
      if (st && st.code === "Skip" && !w.length) { skipped.push(p); return; }
      var code = st ? st.code : "\u2013";
      rows.push(h("tr", { cls: REJECTED[code] || code === "Error" ? "bad" : null },
        h("th", { scope: "row" }, p, p === ownPlugin ? " \u2605" : ""),
        h("td", { cls: "code code-" + code }, codeMark(code) + " " + code),
        h("td", null, st && st.reasons ? st.reasons.join("; ") : "", wordsList(w))));
    });
    return [
      h("h3", { text: "Filter plugins, each run on its own" + (ownPlugin ? " (\u2605 = the scheduler's first failure)" : "") }),
      h("table", { cls: "plugins" }, h("thead", null, h("tr", null, h("th", { scope: "col", text: "plugin" }),
        h("th", { scope: "col", text: "verdict" }), h("th", { scope: "col", text: "reasons and facts" }))), h("tbody", null, rows)),
      skipped.length ? h("p", { cls: "note", text: "Nothing to check for this pod (PreFilter returned Skip): " + skipped.join(", ") }) : null
    ];
  }

  function scorePart(m, r) {
    var entry = (m.trace.score || {})[r.name];
    if (!entry) return null;
    var words = m.words[r.name] || {};
    var ps = Object.keys(entry.plugins || {});
    if (!ps.length) return [h("h3", { text: "Score plugins" }), h("p", { text: "none: PreScore skipped every Score plugin, so every node scores 0" })];
    return [
      h("h3", { text: "Score plugins (total " + entry.total + ")" }),
      h("table", { cls: "plugins" },
        h("thead", null, h("tr", null, ["plugin", "raw", "normalized", "weight", "weighted", "why"].map(function (c, k) {
          return h("th", { scope: "col", cls: k && k < 5 ? "num" : null, text: c });
        }))),
        h("tbody", null, ps.map(function (p) {
          var s = entry.plugins[p];
          return h("tr", null, h("th", { scope: "row", text: p }), h("td", { cls: "num", text: s.raw }),
            h("td", { cls: "num", text: s.normalized }), h("td", { cls: "num", text: s.weight }),
            h("td", { cls: "num", text: s.weighted }), h("td", null, wordsList((words[p] || [[], []])[1])));
        })))
    ];
  }

  function resourcesPart(m, facts) {
    var res = facts.resources;
    if (!res) return null;
    var names = Object.keys(res);
    Object.keys(m.podRequests).forEach(function (k) { if (names.indexOf(k) < 0) names.push(k); });
    return [
      h("h3", { text: "Resources" }),
      h("table", { cls: "resources" },
        h("thead", null, h("tr", null, ["resource", "the pod requests", "the node's pods request", "allocatable", "free"].map(function (c, k) {
          return h("th", { scope: "col", cls: k ? "num" : null, text: c });
        }))),
        h("tbody", null, names.map(function (n) {
          var x = res[n];
          var want = n === "pods" ? "1" : (m.podRequests[n] || "\u2013");
          if (!x) return h("tr", null, h("th", { scope: "row", text: n }), h("td", { cls: "num", text: want }),
            h("td", { cls: "num", text: "\u2013" }), h("td", { cls: "num", text: "0 (the node does not offer it)" }), h("td", { cls: "num", text: "0" }));
          var free = quantity(x.allocatable) - quantity(x.requested);
          var shown = n === "cpu" ? fmtCpu(free) : /memory|storage|hugepages/.test(n) ? fmtBytes(free) : String(Math.round(free * 1000) / 1000);
          return h("tr", null, h("th", { scope: "row", text: n }), h("td", { cls: "num", text: want }),
            h("td", { cls: "num", text: x.requested }), h("td", { cls: "num", text: x.allocatable }), h("td", { cls: "num", text: shown }));
        })))
    ];
  }

  var DEVICE_REASON = {
    free: "free", inUse: "in use", poolIncomplete: "in a pool that is incomplete", poolInvalid: "in an invalid pool",
    bindingConditions: "has bindingConditions (not allocatable)", selectorFalse: "rejected by a selector",
    selectorError: "a selector fails on it", consumesCounters: "partitionable (consumesCounters)"
  };

  // Why a device cannot serve the request, in a line; a selector's evaluation (every
  // subexpression and the value it read) on demand, under it.
  function deviceDetail(m, d) {
    if (d.reason === "inUse") {
      return "by " + (d.by || []).map(function (c) { return "claim " + c; }).join(", ") +
        (d.pods && d.pods.length ? " (pod " + d.pods.join(", ") + ")" : "");
    }
    if (d.reason === "selectorFalse" && d.selector) {
      var s = d.selector;
      var line = own(m.selectors, s.summary) ? m.selectors[s.summary] : s.owner + " selectors[" + s.index + "]: " + (s.conjunct || s.expression) + " is false";
      var values = s.values || [];
      if (!values.length && !s.expression) return line;
      return [line, h("details", { cls: "cel" }, h("summary", { text: "the selector, evaluated" }),
        h("code", { cls: "cel-expr", text: s.expression || "" }),
        values.length ? h("ul", null, values.map(function (v) {
          return h("li", null, h("code", { text: v.expression }), " = ", own(v, "value") ? String(v.value) : "error: " + (v.error || "?"));
        })) : null)];
    }
    if (d.reason === "selectorError") return String(d.error || "");
    return d.detail ? String(d.detail) : "";
  }

  function requestPart(m, req) {
    var parts = [];
    if (req.subrequests) {
      parts.push(h("p", { text: "request " + req.request + " (firstAvailable): " +
        (req.chosen ? "the allocator would take subrequest " + req.chosen : "no subrequest can be served") }));
      req.subrequests.forEach(function (s) { parts.push(requestPart(m, s)); });
      return h("div", { cls: "request" }, parts);
    }
    var what = (req.allocationMode === "All" ? "all devices" : plural(req.count || 1, "device")) + " of class " + req.deviceClass;
    var counts = Object.keys(req.reasons || {}).map(function (k) { return req.reasons[k] + " " + (DEVICE_REASON[k] || k); }).join(", ");
    parts.push(h("h5", { text: "request " + req.request + ": " + what + " \u2013 " + req.free + " free for it" + (counts ? " (" + counts + ")" : "") }));
    var devices = req.devices || [];
    if (devices.length) {
      parts.push(h("table", { cls: "devices" },
        h("thead", null, h("tr", null, h("th", { scope: "col", text: "device" }), h("th", { scope: "col", text: "can it serve the request?" }),
          h("th", { scope: "col", text: "why" }))),
        h("tbody", null, devices.map(function (d) {
          var ok = d.reason === "free";
          var parts = String(d.device).split("/"); // breakable after each slash: driver/pool/device
          return h("tr", { cls: ok ? "ok" : "bad" }, h("th", { scope: "row" }, parts.map(function (p, k) {
            return k < parts.length - 1 ? [p + "/", h("wbr")] : p;
          })),
            h("td", null, (ok ? "\u2713 yes: " : "\u2717 no: ") + (DEVICE_REASON[d.reason] || d.reason)), h("td", null, deviceDetail(m, d)));
        }))));
    }
    if (req.moreDevices) parts.push(h("p", { cls: "note", text: "and " + plural(req.moreDevices, "more device") + " (not listed)" }));
    return h("div", { cls: "request" }, parts);
  }

  function devicesPart(m, facts) {
    var dra = ((facts.plugins || {}).DynamicResources);
    if (!dra || !dra.claims) return null;
    var out = [h("h3", { text: "Devices (DynamicResources)" })];
    if (dra.verdict) out.push(h("p", { text: "Verdict: " + dra.verdict.code + (dra.verdict.reason ? ": " + dra.verdict.reason : "") + (dra.verdict.error ? ": " + dra.verdict.error : "") }));
    if (dra.pools && dra.pools.length) {
      out.push(h("p", { text: "Pools: " + dra.pools.map(function (p) {
        return p.pool + " (" + plural(p.devices, "device") + " in " + plural(p.slices, "slice") + (p.incomplete ? ", incomplete" : "") + (p.invalid ? ", invalid" : "") + ")";
      }).join("; ") }));
    }
    if (dra.poolsError) out.push(h("p", { cls: "warn", text: "Pools: " + dra.poolsError }));
    dra.claims.forEach(function (c) {
      var box = h("div", { cls: "claim" }, h("h4", { text: "claim " + c.claim + (c.allocated ? ": allocated" : ": to allocate") }));
      if (c.error) box.appendChild(h("p", { cls: "warn", text: c.error }));
      if (c.allocated) {
        box.appendChild(h("p", { text: (c.availableOnNode === false ? "\u2717 its allocation's node selector does not admit this node. " : "") +
          "Devices: " + (c.devices || []).map(function (d) { return typeof d === "string" ? d : (d.device || JSON.stringify(d)); }).join(", ") }));
      }
      (c.requests || []).forEach(function (r) { box.appendChild(requestPart(m, r)); });
      (c.constraints || []).forEach(function (k) {
        box.appendChild(h("p", { text: "constraint matchAttribute " + k.matchAttribute + " over " + (k.requests || []).join(", ") + ": " +
          (k.values || []).map(function (v) { return v.value + " (" + (v.devices || []).length + ")"; }).join(", ") +
          (k.missing && k.missing.length ? "; without the attribute: " + k.missing.length : "") }));
      });
      if (c.wouldAllocate) {
        box.appendChild(h("p", { cls: "ok", text: "\u2713 would allocate: " + c.wouldAllocate.map(function (a) { return a.request + " \u2192 " + a.device; }).join(", ") }));
      }
      out.push(box);
    });
    if (dra.deviceClasses && dra.deviceClasses.length) {
      out.push(h("table", { cls: "classes" },
        h("thead", null, h("tr", null, ["class", "devices", "in use", "free"].map(function (c, k) { return h("th", { scope: "col", cls: k ? "num" : null, text: c }); }))),
        h("tbody", null, dra.deviceClasses.map(function (c) {
          return h("tr", null, h("th", { scope: "row", text: c.deviceClass }), h("td", { cls: "num", text: c.total }),
            h("td", { cls: "num", text: c.inUse }), h("td", { cls: "num", text: c.free }));
        }))));
    }
    return h("section", { cls: "device-view", "aria-label": "Devices" }, out);
  }

  function preemptionPart(m, r) {
    var post = m.trace.postFilter;
    if (!post || post.plugin !== "DefaultPreemption") return null;
    var details = m.trace.preemption || {};
    var text;
    if (post.nominatedNodeName === r.name) {
      text = "Preemption: the pod would be nominated to this node, evicting " + ((post.victims || []).join(", ") || "no pod") + ".";
    } else {
      var c = (details.candidates || []).filter(function (x) { return x.node === r.name; })[0];
      var st = (details.nodeStatuses || {})[r.name];
      if (c) text = "Preemption: a candidate (victims " + (c.victims || []).join(", ") + ")" + (c.lostOn ? ", but the nominated node wins on " + c.lostOn : "") + ".";
      else if (st) text = "Preemption: does not help here: " + (st.reasons || [st.code]).join("; ") + ".";
      else if (post.nominatedNodeName) text = "Preemption: the pod would be nominated to " + post.nominatedNodeName + ".";
      else if (r.reported && r.reported.code === "UnschedulableAndUnresolvable") text = "Preemption: evicting pods cannot help here (UnschedulableAndUnresolvable).";
      else text = "Preemption would not help anywhere.";
    }
    return h("p", { cls: "preemption", text: text });
  }

  function openNode(i, name, from) {
    var m = model(i);
    var r = m.byName[name];
    if (!r || !panel) return;
    showTrace(i, true);
    var facts = ((m.trace.details || {}).nodes || {})[name] || {};
    var title = h("h2", { id: "panel-title" }, "Node ", h("span", { cls: "name", text: name }), facts.zone ? " (zone " + facts.zone + ")" : "",
      " for pod ", h("span", { cls: "name", text: podName(m.trace) }));
    var close = h("button", { type: "button", cls: "close", text: "Close", "aria-label": "Close the node's verdict" });
    close.addEventListener("click", closePanel);
    panel.textContent = "";
    add(panel, [
      h("div", { cls: "panel-head" }, title, close),
      h("p", { cls: "verdict" }, statusCell(r), " ", verdictOf(m, r)),
      r.cordoned ? h("p", { text: "The node is cordoned (spec.unschedulable)." }) : null,
      filterPart(m, r, facts), scorePart(m, r), resourcesPart(m, facts), devicesPart(m, facts), preemptionPart(m, r),
      Object.keys(facts).length ? h("details", null, h("summary", { text: "The node's facts as recorded in the trace (details.nodes; the plugins' facts are in words above)" }),
        h("pre", { cls: "json", text: JSON.stringify(facts, null, 2) })) : null
    ]);
    returnTo = from || document.activeElement;
    if (!panel.open) {
      if (typeof panel.showModal === "function") panel.showModal(); else panel.setAttribute("open", "");
    }
    close.focus();
    var hash = "#t" + i + "/node/" + encodeURIComponent(name);
    if (location.hash !== hash && history.replaceState) history.replaceState(null, "", hash);
  }

  // Closed by its button, Escape or a click beside it: the focus goes back where it came from
  // at once (the row, drawn anew if need be), not when the browser gets round to it.
  function closePanel() {
    if (!panel.open) return;
    panel.close();
    if (history.replaceState && /\/node\//.test(location.hash)) history.replaceState(null, "", location.hash.replace(/\/node\/.*$/, ""));
    var back = returnTo;
    returnTo = null;
    if (typeof back === "function") back();
    else if (back && document.contains(back)) back.focus();
  }

  if (panel) {
    panel.addEventListener("cancel", function (e) { e.preventDefault(); closePanel(); });
    panel.addEventListener("click", function (e) { if (e.target === panel) closePanel(); });
  }

  // -- the search, drawn ----------------------------------------------------------------------------

  var DRAW = { // fill, and the part of the cell's height it takes: shape, not colour alone
    chosen: ["#1a7f37", 1.0], selected: ["#1a7f37", 0.9], feasible: ["#2da44e", 0.75], passed: ["#2da44e", 0.75],
    dropped: ["#bf8700", 0.75], rejected: ["#cf222e", 0.45], error: ["#8250df", 1.0], unexamined: ["#8c959f", 0.2],
    outside: ["#d0d7de", 0.1], notrun: ["#d0d7de", 0.1]
  };
  var ZONE_COLOURS = ["#0969da", "#bc4c00", "#8250df", "#1a7f37", "#bf3989", "#57606a", "#9a6700", "#0550ae"];

  function searchLine(m) {
    var t = m.trace, s = t.search;
    var order = s.order || [];
    var rounds = order.slice();
    if (order.length && order.indexOf(order[0], 1) > 0) rounds = order.slice(1); // the nominated node, tried first
    else if (t.hint && order[0] === t.hint) rounds = order.slice(1);
    var list = rounds.slice();
    var inList = {};
    list.forEach(function (n) { inList[n] = 1; });
    ((t.unexamined || {}).nodes || []).forEach(function (n) { if (!inList[n]) { inList[n] = 1; list.push(n); } });
    m.rows.forEach(function (r) { if (!inList[r.name] && r.status !== "outside") { inList[r.name] = 1; list.push(r.name); } });
    var total = Math.max(list.length, 1);
    var deterministic = s.orderDeterministic !== false && !t.preFilterNodeNames;
    // Round-robin position k is index (start + k) mod N of the zone-interleaved node list.
    var cells = new Array(total);
    list.forEach(function (n, k) { cells[deterministic ? (s.startIndex + k) % total : k] = n; });
    return { cells: cells, rounds: rounds.length, deterministic: deterministic, total: total };
  }

  function mountSearch(section, i) {
    var mount = section.querySelector('[data-mount="search"]');
    var m = model(i);
    var s = m.trace.search;
    if (!mount || !s) return;
    var line = searchLine(m);
    var zones = [];
    m.rows.forEach(function (r) { if (r.zone && zones.indexOf(r.zone) < 0) zones.push(r.zone); });
    // The drawing's rows, top to bottom: the "started at" label and its mark, the nodes' bars,
    // the zones' strip, the "stopped at" mark and its label, whose descenders need room below.
    var LABEL = 11, TOP = LABEL + 13, BAR = 40, ZONE_Y = TOP + BAR + 4, MARK_Y = ZONE_Y + 8;
    var HEIGHT = MARK_Y + 10 + 4 + LABEL + 6;
    var canvas = h("canvas", { height: HEIGHT, tabindex: 0, role: "img" });
    var readout = h("p", { cls: "readout", "aria-live": "polite" });
    var start = s.startIndex % line.total;
    var last = line.deterministic && line.rounds ? (s.startIndex + line.rounds - 1) % line.total : null;
    var next = s.nextStartIndex % line.total;
    var summary = "The zone-interleaved list of " + plural(line.total, "node") + (line.deterministic ? ": the search started at index " +
      start + ", visited " + plural(line.rounds, "node") + (last !== null ? " and stopped at index " + last : "") +
      "; the next pod starts at index " + next : " (PreFilter narrowed the search: drawn in visiting order)") + "; " +
      plural(m.rows.filter(function (r) { return r.status === "unexamined"; }).length, "node") + " never examined.";
    canvas.setAttribute("aria-label", summary + " Arrow keys move along it; Enter opens the node.");
    var cursor = start;
    function draw() {
      var ratio = window.devicePixelRatio || 1;
      var width = Math.max(200, mount.clientWidth || 800);
      canvas.style.width = width + "px";
      canvas.style.height = HEIGHT + "px";
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(HEIGHT * ratio);
      var g = canvas.getContext("2d");
      if (!g) return;
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.clearRect(0, 0, width, HEIGHT);
      var w = width / line.total;
      var cell = w > 4 ? w - 1 : Math.max(w, 0.6); // a gap between cells when each is wide enough to see
      var top = TOP, bar = BAR;
      for (var k = 0; k < line.total; k++) {
        var n = line.cells[k];
        var r = n !== undefined ? m.byName[n] : null;
        var d = DRAW[r ? r.status : "notrun"];
        g.fillStyle = d[0];
        var hh = bar * d[1];
        g.fillRect(k * w, top + bar - hh, cell, hh);
        if (r && r.zone) {
          g.fillStyle = ZONE_COLOURS[zones.indexOf(r.zone) % ZONE_COLOURS.length];
          g.fillRect(k * w, ZONE_Y, cell, 6);
        }
      }
      g.fillStyle = "#24292f";
      g.font = LABEL + "px sans-serif";
      function mark(index, label, up) {
        var x = (index + 0.5) * w;
        g.beginPath();
        if (up) { g.moveTo(x, MARK_Y); g.lineTo(x - 5, MARK_Y + 10); g.lineTo(x + 5, MARK_Y + 10); }
        else { g.moveTo(x, top - 2); g.lineTo(x - 5, top - 12); g.lineTo(x + 5, top - 12); }
        g.fill();
        var tw = g.measureText(label).width;
        var tx = Math.min(Math.max(0, x - tw / 2), width - tw);
        // Labels hang from their top: the text's whole height, descenders included, is below it.
        g.textBaseline = up ? "top" : "alphabetic";
        g.fillText(label, tx, up ? MARK_Y + 14 : top - 14);
      }
      if (line.deterministic) {
        mark(start, "started at " + start, false);
        if (last !== null) mark(last, "stopped at " + last, true);
      }
      g.strokeStyle = "#24292f";
      g.lineWidth = 1.5;
      g.strokeRect(cursor * w, top - 1, Math.max(w, 2), bar + 2);
    }
    function indexAt(e) {
      var rect = canvas.getBoundingClientRect();
      return Math.max(0, Math.min(line.total - 1, Math.floor((e.clientX - rect.left) / rect.width * line.total)));
    }
    function describe(k) {
      var n = line.cells[k];
      var r = n !== undefined ? m.byName[n] : null;
      readout.textContent = "index " + k + ": " + (r ? r.name + (r.zone ? " (" + r.zone + ")" : "") + ": " + STATUS[r.status][1] +
        (r.visit ? ", visited " + ordinal(r.visit) : "") : "(no node)");
    }
    canvas.addEventListener("mousemove", function (e) { describe(indexAt(e)); });
    canvas.addEventListener("click", function (e) {
      cursor = indexAt(e);
      draw();
      var n = line.cells[cursor];
      if (n !== undefined) openNode(i, n, canvas);
    });
    canvas.addEventListener("keydown", function (e) {
      var step = { ArrowRight: 1, ArrowLeft: -1, PageDown: 50, PageUp: -50 }[e.key];
      if (step) { e.preventDefault(); cursor = (cursor + step + line.total) % line.total; draw(); describe(cursor); }
      else if (e.key === "Home" || e.key === "End") { e.preventDefault(); cursor = e.key === "Home" ? 0 : line.total - 1; draw(); describe(cursor); }
      else if (e.key === "Enter" && line.cells[cursor] !== undefined) { e.preventDefault(); openNode(i, line.cells[cursor], canvas); }
    });
    var present = {};
    m.rows.forEach(function (r) { present[r.status] = 1; });
    var legend = h("ul", { cls: "legend" }, Object.keys(DRAW).filter(function (k) { return present[k]; }).map(function (k) {
      var d = DRAW[k];
      return h("li", null, h("span", { cls: "swatch", style: "background:" + d[0] + ";height:" + Math.round(14 * d[1]) + "px" }),
        STATUS[k][0] + " " + STATUS[k][1] + (d[1] < 1 ? " (" + Math.round(d[1] * 100) + "% high)" : " (full height)"));
    }), zones.map(function (z, k) {
      return h("li", null, h("span", { cls: "swatch zone", style: "background:" + ZONE_COLOURS[k % ZONE_COLOURS.length] }), "zone " + z);
    }));
    mount.appendChild(h("figure", { cls: "search" }, canvas, h("figcaption", null, summary), readout, legend));
    draw();
    describe(cursor);
    window.addEventListener("resize", draw);
  }

  function ordinal(n) {
    var s = ["th", "st", "nd", "rd"], v = n % 100;
    return num(n) + (s[(v - 20) % 10] || s[v] || s[0]);
  }

  // -- many pods: where they went -------------------------------------------------------------------

  function traceIndex() {
    var out = {};
    TRACES.forEach(function (t, k) { if (!own(out, podName(t))) out[podName(t)] = k; });
    return out;
  }

  function link(k, text) {
    return h("a", { href: "#t" + k, text: text, onclick: function (e) { e.preventDefault(); showTrace(k); } });
  }

  function counts(items, key) {
    var out = {};
    items.forEach(function (x) { var v = key(x); if (v) out[v] = (out[v] || 0) + 1; });
    return out;
  }

  function bars(title, table) {
    var keys = Object.keys(table);
    if (!keys.length) return null;
    var max = Math.max.apply(null, keys.map(function (k) { return table[k]; }));
    return h("div", { cls: "bars" }, h("h4", { text: title }), h("ul", null, keys.map(function (k) {
      return h("li", null, h("span", { cls: "bar-label", text: k }),
        h("span", { cls: "bar", style: "width:" + Math.max(1, Math.round(table[k] / max * 100)) + "%" }),
        h("span", { cls: "bar-count", text: num(table[k]) }));
    })));
  }

  function podsGrid(pods, withObject) {
    var columns = [
      { label: "#", num: true, asc: true, get: function (r) { return r.n; }, title: "The order they were scheduled in" },
      { label: "Object", get: function (r) { return r.object; }, asc: true },
      { label: "Pod", get: function (r) { return r.name; }, asc: true,
        show: function (r) { return r.trace !== null ? link(r.trace, r.name) : r.name; } },
      { label: "Node", get: function (r) { return r.node; }, asc: true,
        show: function (r) { return r.node ? r.node : r.status === "Scheduled" ? "" : "(does not fit)"; } },
      { label: "Zone", get: function (r) { return r.zone; }, asc: true },
      { label: "Verdict", get: function (r) { return r.status; }, asc: true,
        show: function (r) { return h("span", { cls: "badge st-" + r.status, text: (r.status === "Scheduled" ? "\u2713 " : "\u2717 ") + r.status }); } },
      { label: "Explanation", get: function (r) { return r.trace !== null ? 0 : r.summary ? 1 : 2; }, asc: true,
        show: function (r) {
          return r.trace !== null ? link(r.trace, "open") : r.summary ? h("span", { cls: "summary-mark", text: "summary (Enter or click)" }) : "counted only";
        } }
    ];
    if (!withObject) columns.splice(1, 1);
    var grid = new Grid({ label: "Each pod", rows: pods, sort: 0, sortDir: 1, height: 330, columns: columns,
      onOpen: function (r) {
        if (r.summary) openCopy(r, function () { grid.reveal(); });
        else if (r.trace !== null) showTrace(r.trace);
      } });
    return grid;
  }

  // One copy's own explanation in brief (`placements[].pods[].summary`): every copy has one,
  // whether or not its full trace is kept.
  function copyParts(r) {
    var s = r.summary, out = [];
    var where = r.node ? "scheduled to " + r.node + (r.zone ? " (zone " + r.zone + ")" : "") : r.status;
    out.push(h("p", { cls: "verdict" }, h("span", { cls: "badge st-" + r.status, text: (r.status === "Scheduled" ? "\u2713 " : "\u2717 ") + r.status }),
      " " + r.name + ": " + where + (s.nominatedNodeName ? "; preemption nominated " + s.nominatedNodeName : "") + "."));
    if (s.message) {
      out.push(h("table", { cls: "event" }, h("tbody", null, h("tr", null, h("td", { text: "Warning" }), h("td", { text: "FailedScheduling" }),
        h("td", null, h("span", { cls: "message", text: s.message }))))));
    }
    if (s.kubelet) {  // bound by spec.nodeName: the kubelet's own event (no scheduler saw the pod)
      out.push(h("table", { cls: "event" }, h("tbody", null, h("tr", null, h("td", { text: s.kubelet.type }), h("td", { text: s.kubelet.reason }),
        h("td", { text: s.kubelet.from }), h("td", null, h("span", { cls: "message", text: s.kubelet.message }))))));
    }
    var q = s.search;
    if (q) {
      out.push(h("p", { cls: "copy-search", text: "The search started at index " + num(q.startIndex) + " of " + plural(q.numAllNodes, "node") +
        ", visited " + plural(q.numNodesSearched, "node") + " and found " + num(q.numFilterSuccess) + " feasible." }));
    }
    var top = s.top || [];
    if (top.length) {
      var plugins = [];
      top.forEach(function (t) { Object.keys(t.plugins || {}).forEach(function (p) { if (plugins.indexOf(p) < 0) plugins.push(p); }); });
      out.push(h("h3", { text: "Its best " + plural(top.length, "node") + " (weighted scores)" }));
      out.push(h("table", { cls: "copy-top" },
        h("thead", null, h("tr", null, ["node", "total"].concat(plugins).map(function (c, k) { return h("th", { scope: "col", cls: k ? "num" : null, text: SHORT[c] || c, title: c }); }))),
        h("tbody", null, top.map(function (t) {
          return h("tr", null, h("td", { cls: "name", text: t.node }), h("td", { cls: "num", text: num(t.total) }),
            plugins.map(function (p) { return h("td", { cls: "num", text: own(t.plugins, p) ? num(t.plugins[p]) : "\u2013" }); }));
        }))));
    } else if (q && r.status === "Scheduled") {
      out.push(h("p", { cls: "note", text: "Not scored: " + (q.numFilterSuccess === 1 ? "one node was feasible." : "the node was taken without scoring.") }));
    }
    var rejected = s.rejected || [];
    if (rejected.length) {
      out.push(h("h3", { text: "Rejected, by reason" }));
      out.push(h("table", { cls: "copy-rejected" },
        h("thead", null, h("tr", null, ["plugin", "reason", "nodes"].map(function (c, k) { return h("th", { scope: "col", cls: k === 2 ? "num" : null, text: c }); }))),
        h("tbody", null, rejected.map(function (x) {
          return h("tr", null, h("td", { text: x.plugin }), h("td", { text: x.reason }),
            h("td", { cls: "num", text: x.stage ? x.stage + " (the pod)" : num(x.nodes) }));
        }))));
    } else if (q) {
      out.push(h("p", { cls: "note", text: "No node visited was rejected." }));
    }
    out.push(r.trace !== null ? h("p", { cls: "copy-full" }, "Its full explanation: ", h("a", { href: "#t" + r.trace, text: "open it",
      onclick: function (e) { e.preventDefault(); returnTo = null; closePanel(); showTrace(r.trace); } }), ".")
      : h("p", { cls: "note copy-full", text: "Its full trace is not kept (of a workload's copies, the first, the first that does not fit and the last are); -o json lists every copy's trace." }));
    return out;
  }

  function openCopy(r, from) {
    if (!panel) return;
    var close = h("button", { type: "button", cls: "close", text: "Close", "aria-label": "Close the pod's explanation" });
    close.addEventListener("click", closePanel);
    panel.textContent = "";
    add(panel, [h("div", { cls: "panel-head" }, h("h2", { id: "panel-title" }, "Pod ", h("span", { cls: "name", text: r.name }), " (" + r.object + ")"), close),
      copyParts(r)]);
    returnTo = from || document.activeElement;
    if (!panel.open) {
      if (typeof panel.showModal === "function") panel.showModal(); else panel.setAttribute("open", "");
    }
    close.focus();
  }

  function perNode(pods) {
    var table = {}, zone = {};
    pods.forEach(function (p) { if (p.node) { table[p.node] = (table[p.node] || 0) + 1; zone[p.node] = p.zone || ""; } });
    return Object.keys(table).map(function (n) { return { node: n, zone: zone[n], pods: table[n] }; });
  }

  // Where each pod (or copy) went, per zone and per node, and each pod's explanation one click away.
  function mountOverview() {
    var mount = document.querySelector('[data-mount="overview"]');
    if (!mount) return;
    var index = traceIndex();
    var placements = DOC.placements || [];
    var pods = [];
    if (placements.length) {
      placements.forEach(function (p) {
        var o = p.object || {};
        (p.pods || []).forEach(function (x) {
          var key = o.namespace + "/" + x.name;
          pods.push({ n: pods.length + 1, object: o.kind + " " + o.namespace + "/" + o.name, name: x.name, node: x.node || "",
            zone: x.zone || "", status: x.status, trace: own(index, key) ? index[key] : null, summary: x.summary || null });
        });
      });
    } else {
      TRACES.forEach(function (t, k) {     // each pod where the scheduler's queue leaves it
        var result = inQueue(t);
        var host = result.status === "Scheduled" ? result.suggestedHost || "" : "";
        var f = (((t.details || {}).nodes || {})[host]) || {};
        pods.push({ n: k + 1, object: "Pod " + podName(t), name: podName(t), node: host, zone: f.zone || "",
          status: result.status, trace: k });
      });
    }
    var objects = [];
    pods.forEach(function (p) { if (objects.indexOf(p.object) < 0) objects.push(p.object); });
    var verb = placements.length ? "went" : "would go";
    var which = h("select", { id: "overview-object" });
    options(which, objects.map(function (o) { return [o, o]; }), "every object");
    var barsBox = h("div");
    var nodeGrid = new Grid({ label: "Pods per node", rows: [], sort: 2, sortDir: -1, height: 240,
      empty: "No pod " + verb + " to a node.", columns: [
      { label: "Node", get: function (r) { return r.node; }, asc: true },
      { label: "Zone", get: function (r) { return r.zone; }, asc: true },
      { label: "Pods", num: true, get: function (r) { return r.pods; } }] });
    var podGrid = podsGrid(pods, placements.length > 0 && objects.length > 1);
    var notes = h("div");
    var said = h("p", { cls: "count", "aria-live": "polite" });
    // Of each object's copies, how many there are (a workload's replicas its controller got
    // created: the copies after the first that does not fit are never tried, and the static
    // note says why; those the API server refused, FailedCreate, are no pods).
    var planned = {};
    placements.forEach(function (p) { var o = p.object || {};
      planned[o.kind + " " + o.namespace + "/" + o.name] = (p.created !== undefined ? p.created : p.replicas) || 0; });
    function apply() {
      var chosen = pods.filter(function (p) { return !which.value || p.object === which.value; });
      var zones = counts(chosen, function (x) { return x.node ? (x.zone || "(no zone)") : null; });
      var placed = chosen.filter(function (p) { return p.node; }).length;
      barsBox.textContent = "";
      add(barsBox, bars("Per zone", zones) || (placed ? h("p", { cls: "note", text: "No pod " + verb + " to a node with a zone." }) : null));
      where.hidden = !placed;   // nothing went anywhere: no empty tables
      nodeGrid.setRows(perNode(chosen));
      podGrid.setRows(chosen);
      var total = placements.length ? Object.keys(planned).reduce(function (n, o) {
        return n + (!which.value || which.value === o ? planned[o] : 0); }, 0) : chosen.length;
      var full = num(chosen.filter(function (p) { return p.trace !== null; }).length) + " explained in full.";
      var untried = total - chosen.length;
      var head = !placed ? (total === 1 ? "The pod does not fit" : "None of the " + plural(total, "pod") + " fits") + ": no pod " + verb + " to a node"
        : num(placed) + " of the " + plural(total, "pod") + " " + verb + " to " + plural(perNode(chosen).length, "node");
      said.textContent = head + (untried > 0 ? "; " + num(chosen.length) + " tried, " + num(untried) + " never tried (see above)" : "") +
        "; " + full;
      notes.textContent = "";
      placements.forEach(function (p) {
        var o = p.object || {};
        var name = o.kind + " " + o.namespace + "/" + o.name;
        var excluded = p.notEligible || {};
        if ((!which.value || which.value === name) && Object.keys(excluded).length) {
          notes.appendChild(h("p", { cls: "note", text: name + ": not eligible (the DaemonSet runs no pod there): " +
            Object.keys(excluded).map(function (n) { return n + " (" + excluded[n] + ")"; }).join(", ") }));
        }
      });
    }
    which.addEventListener("change", apply);
    var where = h("div", { cls: "where" }, barsBox, h("div", null, h("h4", { text: "Per node" }), nodeGrid.root));
    mount.appendChild(h("h3", { text: "Where the pods " + verb }));
    if (objects.length > 1) mount.appendChild(h("div", { cls: "filters" }, h("label", null, "Object ", which)));
    mount.appendChild(said);
    mount.appendChild(where);
    mount.appendChild(notes);
    mount.appendChild(h("h4", { text: "Each pod, in the order they were scheduled" }));
    mount.appendChild(podGrid.root);
    apply();
    document.querySelectorAll("#overview table.pods").forEach(function (e) { e.classList.add("print-only"); });
  }

  // -- lint: the findings, filtered ------------------------------------------------------------------

  function mountFindings() {
    var mount = document.querySelector('[data-mount="findings"]');
    var tableEl = document.querySelector("table.findings");
    if (!mount || !tableEl) return;
    var rows = Array.prototype.slice.call(tableEl.tBodies[0].rows);
    var sev = h("select", { id: "f-severity" }), rule = h("select", { id: "f-rule" }), text = h("input", { type: "search", id: "f-text", placeholder: "words of the message, file or object" });
    var sevs = {}, rules = {};
    rows.forEach(function (r) { sevs[r.cells[0].textContent.trim().split(" ").pop()] = 1; rules[r.cells[1].textContent] = 1; });
    options(sev, Object.keys(sevs).map(function (s) { return [s, s]; }), "any severity");
    options(rule, Object.keys(rules).sort().map(function (s) { return [s, s]; }), "any rule");
    var shown = h("p", { cls: "count", "aria-live": "polite" });
    function apply() {
      var q = text.value.trim().toLowerCase(), n = 0;
      rows.forEach(function (r) {
        var ok = (!sev.value || r.cells[0].textContent.trim().split(" ").pop() === sev.value) &&
          (!rule.value || r.cells[1].textContent === rule.value) && (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
        r.hidden = !ok;
        if (ok) n++;
      });
      shown.textContent = "Showing " + num(n) + " of " + plural(rows.length, "finding") + ".";
    }
    [sev, rule].forEach(function (c) { c.addEventListener("change", apply); });
    text.addEventListener("input", apply);
    mount.appendChild(h("div", { cls: "filters", role: "search", "aria-label": "Filter the findings" },
      h("label", null, "Severity ", sev), h("label", null, "Rule ", rule), h("label", null, "Text ", text)));
    mount.appendChild(shown);
    tableEl.parentNode.insertBefore(mount, tableEl);
    apply();
  }

  // -- navigation -----------------------------------------------------------------------------------

  var sections = Array.prototype.slice.call(document.querySelectorAll("section.trace"));
  var mounted = {};
  var current = -1;
  var many = sections.length > 1 || KIND !== "trace";
  var navSelect = null;

  function mountTrace(i) {
    if (mounted[i]) return;
    mounted[i] = true;
    var section = sections[i];
    if (!section) return;
    mountNodes(section, i);
    mountSearch(section, i);
  }

  function showTrace(i, keepHash) {
    if (i < 0 || i >= sections.length) return;
    if (many) {
      sections.forEach(function (s, k) { s.classList.toggle("current", k === i); });
      if (navSelect) navSelect.value = String(i);
    }
    mountTrace(i);
    if (current !== i && many && !keepHash) {
      current = i;
      sections[i].scrollIntoView({ block: "start" });
      var head = sections[i].querySelector("h2");
      if (head) { head.setAttribute("tabindex", "-1"); head.focus({ preventScroll: true }); }
      if (history.replaceState && location.hash !== "#t" + i) history.replaceState(null, "", "#t" + i);
    }
    current = i;
  }

  function mountNav() {
    var mount = document.querySelector('[data-mount="nav"]');
    if (!mount || !many || !sections.length) return;
    navSelect = h("select", { id: "nav-trace" });
    TRACES.forEach(function (t, k) {
      navSelect.appendChild(h("option", { value: k, text: (k + 1) + ". " + podName(t) + " \u2013 " + inQueue(t).status }));
    });
    navSelect.addEventListener("change", function () { showTrace(+navSelect.value); });
    mount.appendChild(h("label", null, "Explanation of ", navSelect));
  }

  // The address: #t<i> (an explanation), #t<i>/node/<name> (a node's verdict, opened),
  // #t<i>/group/<name> or #tlist/group/<name> (a node group's full verdict in the Cluster
  // autoscaler section, opened), or #t<i>-<part> (a part of an explanation: its preemption, its
  // fixes, ...), shown and scrolled to.
  function route() {
    var g = /^#t(\d+|list)\/group\/(.+)$/.exec(location.hash);
    if (g) {
      if (g[1] !== "list") showTrace(+g[1], true);
      return openGroup(document.getElementById("t" + g[1] + "/group/" + decodeURIComponent(g[2])), "start");
    }
    var m = /^#t(\d+)(?:\/node\/(.+)|-([\w-]+))?$/.exec(location.hash);
    if (!m) return false;
    var i = +m[1];
    showTrace(i, !!(m[2] || m[3]));
    if (m[2]) openNode(i, decodeURIComponent(m[2]));
    else if (m[3]) {
      var part = document.getElementById("t" + i + "-" + m[3]);
      if (part) part.scrollIntoView({ block: "start" });
    }
    return true;
  }

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a.node[data-node]");
    if (!a) return;
    e.preventDefault();
    var i = +a.getAttribute("data-trace");
    showTrace(i, true);
    openNode(i, a.getAttribute("data-node"), a);
  });
  window.addEventListener("hashchange", route);
  // A node group's name in the Cluster autoscaler table opens its full verdict below it, and
  // the address says so (#t<i>/group/<name>), as a node's does: a link to copy. Opened or closed
  // by its summary, the address follows too.
  function groupHash(details) { return "#" + encodeURI(details.id); }
  function openGroup(details, where) {
    if (!details) return false;
    details.open = true;
    details.scrollIntoView({ block: where || "nearest" });
    var summary = details.querySelector("summary");
    if (summary) summary.focus({ preventScroll: true });
    if (history.replaceState && location.hash !== groupHash(details)) history.replaceState(null, "", groupHash(details));
    return true;
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a.group[data-group]");
    if (!a) return;
    var details = document.getElementById(a.getAttribute("data-group"));
    if (!details) return;
    e.preventDefault();
    openGroup(details);
  });
  document.addEventListener("toggle", function (e) {
    var details = e.target;
    if (!details.classList || !details.classList.contains("ca-group") || !history.replaceState) return;
    if (details.open) {
      if (location.hash !== groupHash(details)) history.replaceState(null, "", groupHash(details));
    } else if (location.hash === groupHash(details)) {
      history.replaceState(null, "", "#" + details.id.replace(/\/group\/.*$/, "") + "-ca");
    }
  }, true);

  mountNav();
  mountOverview();
  mountFindings();
  if (!route() && sections.length) showTrace(0, true);
  document.body.setAttribute("data-ready-ms", String(Math.round(performance.now()))); // for benchmarks/html_bench.py
  document.body.setAttribute("data-ready", "1");
})();
