/* gatewayd status page: polls /api/status every sampling interval, loads /api/history once so
 * the charts start full, and draws them on <canvas>. No framework, no network beyond this host.
 * Markers for tests, on <body>: data-updates (successful polls), data-errors, data-first-seq,
 * data-last-seq, data-changes (polls that brought a new sample), data-history (series loaded);
 * on each <canvas>: data-points (points drawn). */
"use strict";

(function () {
	const HISTORY_S = 900;		/* what the page keeps: the server's raw history */
	const MAX_CHART_CLASSES = 8;	/* more classes are in the table, not the charts */
	const PALETTE = ["#2563eb", "#16a34a", "#ea580c", "#9333ea", "#0891b2", "#db2777",
		"#ca8a04", "#4f46e5"];

	const st = {
		windowS: 300,
		intervalS: 1,
		layout: "",
		dirs: [],		/* one view per link direction */
		series: new Map(),	/* "link/direction/class" -> Series, kept across re-layouts */
		updates: 0,
		errors: 0,
		changes: 0,
		firstSeq: null,
		lastSeq: null,
		lastT: 0,
		historyLoaded: 0,
		timer: 0,
		compareKey: "",
	};

	/* ---- formatting ---- */

	const intFmt = new Intl.NumberFormat("en-US");

	function fmtRate(bps) {
		if (bps === null || bps === undefined || !isFinite(bps)) return "\u2013";
		const u = [["Gbit/s", 1e9], ["Mbit/s", 1e6], ["kbit/s", 1e3]];
		for (const [name, f] of u)
			if (Math.abs(bps) >= f) return num(bps / f) + " " + name;
		return num(bps) + " bit/s";
	}

	function fmtRateShort(bps) {
		if (!isFinite(bps)) return "";
		const u = [["G", 1e9], ["M", 1e6], ["k", 1e3]];
		for (const [name, f] of u)
			if (Math.abs(bps) >= f) return trim(bps / f) + name;
		return trim(bps);
	}

	function num(v) {
		const a = Math.abs(v);
		return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
	}

	function trim(v) {
		return String(parseFloat(v.toPrecision(3)));
	}

	function fmtBytes(b) {
		if (!isFinite(b)) return "\u2013";
		if (b >= 1e9) return num(b / 1e9) + " GB";
		if (b >= 1e6) return num(b / 1e6) + " MB";
		if (b >= 1e3) return num(b / 1e3) + " kB";
		return b + " B";
	}

	function fmtMs(ms) {
		if (ms === null || ms === undefined || !isFinite(ms)) return "\u2013";
		if (ms === 0) return "0 ms";
		if (ms < 0.1) return "<0.1 ms";
		if (ms >= 1000) return num(ms / 1000) + " s";
		return num(ms) + " ms";
	}

	/* a time that may be negative (a one-way delay against another clock) */
	function fmtSignedMs(ms) {
		return ms < 0 ? "\u2212" + fmtMs(-ms) : fmtMs(ms);
	}

	function fmtPerS(v) {
		if (!isFinite(v)) return "\u2013";
		if (v === 0) return "0/s";
		return (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2)) + "/s";
	}

	function fmtCount(n) {
		return isFinite(n) ? intFmt.format(n) : "\u2013";
	}

	function fmtClock(t) {
		const d = new Date(t * 1000);
		return [d.getHours(), d.getMinutes(), d.getSeconds()]
			.map((x) => String(x).padStart(2, "0")).join(":");
	}

	function fmtDuration(s) {
		if (!isFinite(s)) return "\u2013";
		if (s < 60) return Math.floor(s) + " s";
		if (s < 3600) return Math.floor(s / 60) + " min";
		if (s < 86400) return Math.floor(s / 3600) + " h " + Math.floor(s % 3600 / 60) + " min";
		return Math.floor(s / 86400) + " d " + Math.floor(s % 86400 / 3600) + " h";
	}

	function fmtSeconds(s) {
		return isFinite(s) && s < 60 ? trim(s) + " s" : fmtDuration(s);
	}

	/*
	 * A queue kind's own statistics are shown by name, with no code per kind: the key's unit
	 * suffix (the schema's naming) says how to show the value, and the rest of the key, its
	 * underscores as spaces, is the label. A suffix whose unit the value shows is dropped from
	 * the label ("memory_used_bytes": "memory used", "123 kB"); a count keeps its word
	 * ("drop_overlimit_packets": "drop overlimit packets", "17").
	 */
	const UNITS = [
		["_unix_seconds", "", (v) => fmtClock(v)],
		["_bits_per_second", "", fmtRate],
		["_bytes_per_second", "", (v) => fmtRate(v * 8)],
		["_per_second", "", fmtPerS],
		["_bytes", "", fmtBytes],
		["_packets", " packets", fmtCount],
		["_seconds", "", fmtSeconds],
		["_ms", "", fmtMs],
		["_us", "", (v) => fmtMs(v / 1000)],
		["_probability", " probability", (v) => fmtPct(v)],
		["_ratio", "", (v) => fmtPct(v)],
	];
	const WORDS = { ecn: "ECN", ce: "CE", ack: "ACK", rtt: "RTT", ewma: "EWMA" };

	function fmtPct(r) {
		if (!isFinite(r)) return "\u2013";
		return r === 0 ? "0 %" : trim(r * 100) + " %";
	}

	function unitOf(key) {
		return UNITS.find(([suffix]) => key.endsWith(suffix) && key.length > suffix.length);
	}

	function xLabel(key) {
		if (key === "index") return "#";	/* a group's position */
		const u = unitOf(key);
		const words = (u ? key.slice(0, -u[0].length) + u[1].replace(/ /g, "_") : key).split("_");
		return words.filter((w) => w).map((w) => WORDS[w] || w).join(" ");
	}

	function xValue(key, v) {
		if (v === null || v === undefined) return "\u2013";
		if (typeof v === "boolean") return v ? "yes" : "no";
		if (typeof v !== "number") return String(v);
		const u = unitOf(key);
		if (u) return u[2](v);
		return Number.isInteger(v) ? fmtCount(v) : trim(v);
	}

	/* the class's statistics under its own kind's key (fq_codel: {...}), or null */
	function kindStats(c) {
		const o = c[c.kind];
		return o && typeof o === "object" && !Array.isArray(o) ? o : null;
	}

	/* a member that is an array of objects (cake's tins) is a table; other scalars are values */
	function isGroup(v) {
		return Array.isArray(v) && v.every((e) => e && typeof e === "object" && !Array.isArray(e));
	}

	function isScalar(v) {
		return v === null || ["number", "string", "boolean"].includes(typeof v);
	}

	function groupKeys(arr) {
		const keys = [];
		for (const e of arr)
			for (const k of Object.keys(e))
				if (!keys.includes(k) && isScalar(e[k])) keys.push(k);
		return keys;
	}

	/* what the layout depends on: which members there are, and how many rows each group has */
	function kindShape(c) {
		const o = kindStats(c);
		if (!o) return null;
		return Object.keys(o).map((k) => isGroup(o[k]) ? [k, o[k].length, groupKeys(o[k])] :
			isScalar(o[k]) ? k : null);
	}

	/* accuracy: a ratio, or null when the queue was not saturated */
	function accuracy(c) {
		if (!c.saturated || c.accuracy === null || !isFinite(c.accuracy))
			return { text: "not saturated", cls: "idle" };
		const off = Math.abs(c.accuracy - 1);
		return {
			text: (c.accuracy * 100).toFixed(1) + " %",
			cls: off <= 0.02 ? "good" : off <= 0.05 ? "warn" : "bad",
		};
	}

	/* ---- DOM helpers (textContent only: names from the config never become markup) ---- */

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined) e.textContent = text;
		return e;
	}

	function setText(e, text, cls) {
		if (e.textContent !== text) e.textContent = text;
		if (cls !== undefined && e.dataset.cls !== cls) {
			if (e.dataset.cls) e.classList.remove(e.dataset.cls);
			if (cls) e.classList.add(cls);
			e.dataset.cls = cls;
		}
	}

	function setBar(bar, ratio) {
		const r = isFinite(ratio) ? Math.max(0, ratio) : 0;
		bar.firstChild.style.width = Math.min(100, r * 100).toFixed(1) + "%";
		bar.classList.toggle("over", r > 1.005);
	}

	function bar() {
		const b = el("div", "bar");
		b.appendChild(el("i"));
		return b;
	}

	/* ---- series: what the charts draw, per class and direction total ---- */

	/* latency (idle baseline, loaded p50 and p99 of the pass) only for the probed totals */
	const KEYS = ["t", "rate", "delay", "drops", "base", "p50", "p99", "shaper"];

	class Series {
		constructor() {
			for (const k of KEYS) this[k] = [];
		}

		/* shaper: the rate autorate set (the totals of its directions), else null */
		push(t, rate, delay, drops, lat, shaper) {
			const n = this.t.length;
			if (n && t <= this.t[n - 1]) return false;
			[t, rate, delay, drops].concat(lat || [null, null, null], [shaper ?? null])
				.forEach((v, i) => this[KEYS[i]].push(v));
			return true;
		}

		/* history arrives after the first polls: it goes in front of what is there */
		prepend(points, columns) {
			const first = this.t.length ? this.t[0] : Infinity;
			const old = points.filter((p) => p[0] < first);
			/* columns: time, rate min/avg/max, delay min/avg/max, drops, backlog, latency x3,
			 * and where autorate runs the shaper's rate */
			const col = { t: 0, rate: 2, delay: 5, drops: 7, base: 9, p50: 10, p99: 11,
				shaper: (columns || []).indexOf("shaper_rate_bits_per_second") };
			for (const k of KEYS)
				this[k] = old.map((p) => (p[col[k]] === undefined ? null : p[col[k]])).concat(this[k]);
		}

		trim(minT) {
			let i = 0;
			while (i < this.t.length && this.t[i] < minT) i++;
			if (!i) return;
			for (const k of KEYS) this[k].splice(0, i);
		}
	}

	function seriesFor(key) {
		let s = st.series.get(key);
		if (!s) {
			s = new Series();
			st.series.set(key, s);
		}
		return s;
	}

	/* ---- charts ---- */

	function cssVar(name) {
		return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
	}

	/* the top of the y axis: four grid steps of a round size */
	function niceCeil(v) {
		if (!(v > 0)) return 1;
		const step = v / 4, p = Math.pow(10, Math.floor(Math.log10(step)));
		for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
			if (m * p >= step) return 4 * m * p;
		return 40 * p;
	}

	function firstIndex(t, x0) {
		let lo = 0, hi = t.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (t[mid] < x0) lo = mid + 1; else hi = mid;
		}
		return lo;
	}

	/*
	 * lines: [{ s: Series, key: "rate" | "delay" | "drops", color, width }]
	 * opt: { now, fmt, floor, ref (a dashed horizontal line), gap (seconds that break a line) }
	 */
	function drawChart(canvas, lines, opt) {
		const dpr = window.devicePixelRatio || 1;
		const w = canvas.clientWidth, h = canvas.clientHeight;
		if (!w || !h) return;
		if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
			canvas.width = Math.round(w * dpr);
			canvas.height = Math.round(h * dpr);
		}
		const ctx = canvas.getContext("2d");
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, w, h);

		const pad = { l: 46, r: 8, t: 8, b: 20 };
		const pw = w - pad.l - pad.r, ph = h - pad.t - pad.b;
		const x1 = opt.now, x0 = x1 - st.windowS;
		let ymax = opt.floor;
		for (const ln of lines) {
			const v = ln.s[ln.key];
			for (let i = firstIndex(ln.s.t, x0); i < v.length; i++)
				if (isFinite(v[i]) && v[i] > ymax) ymax = v[i];
		}
		if (opt.ref > ymax) ymax = opt.ref;
		ymax = niceCeil(ymax * 1.05);
		const X = (t) => pad.l + (t - x0) / (x1 - x0) * pw;
		const Y = (v) => pad.t + ph - v / ymax * ph;

		ctx.font = "11px system-ui, sans-serif";
		ctx.lineWidth = 1;
		ctx.strokeStyle = cssVar("--grid");
		ctx.fillStyle = cssVar("--muted");
		ctx.textAlign = "right";
		ctx.textBaseline = "middle";
		for (let i = 0; i <= 4; i++) {
			const v = ymax * i / 4, y = Math.round(Y(v)) + 0.5;
			ctx.beginPath();
			ctx.moveTo(pad.l, y);
			ctx.lineTo(w - pad.r, y);
			ctx.stroke();
			ctx.fillText(opt.fmt(v), pad.l - 6, y);
		}
		ctx.textBaseline = "top";
		const ticks = Math.max(1, Math.min(4, Math.floor(pw / 110)));
		for (let i = 0; i <= ticks; i++) {
			const t = x0 + (x1 - x0) * i / ticks;
			ctx.textAlign = i === 0 ? "left" : i === ticks ? "right" : "center";
			ctx.fillText(fmtClock(t), X(t), h - pad.b + 5);
		}

		ctx.save();
		ctx.beginPath();
		ctx.rect(pad.l, pad.t - 2, pw, ph + 4);
		ctx.clip();
		let drawn = 0, until = 0;
		ctx.lineJoin = "round";
		for (const ln of lines) {
			const s = ln.s, v = s[ln.key];
			let pen = false, last = 0;
			ctx.beginPath();
			ctx.strokeStyle = ln.color;
			ctx.lineWidth = ln.width;
			for (let i = Math.max(0, firstIndex(s.t, x0) - 1); i < s.t.length; i++) {
				const val = v[i];
				if (val === null || !isFinite(val)) {
					pen = false;
					continue;
				}
				if (pen && s.t[i] - last > opt.gap) pen = false;
				const x = X(s.t[i]), y = Y(val);
				if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
				pen = true;
				last = s.t[i];
				until = Math.max(until, last);
				drawn++;
			}
			ctx.stroke();
		}
		/* over the lines, so a direction running at its rate still shows it */
		if (opt.ref > 0) {
			ctx.setLineDash([5, 4]);
			ctx.strokeStyle = cssVar("--muted");
			ctx.lineWidth = 1.25;
			ctx.beginPath();
			ctx.moveTo(pad.l, Y(opt.ref));
			ctx.lineTo(w - pad.r, Y(opt.ref));
			ctx.stroke();
			ctx.setLineDash([]);
		}
		ctx.restore();
		canvas.dataset.points = String(drawn);
		canvas.dataset.until = String(until);
	}

	/* ---- layout: built once per set of links, directions and classes ---- */

	function layoutKey(status) {
		return JSON.stringify(status.links.map((l) => [l.name, l.present !== false, l.directions.map((d) =>
			[d.direction, d.shaper, !!d.latency, !!d.autorate, !!d.foreign_hook, d.classes.map((c) => [c.name, c.kind,
				kindShape(c)])])]));
	}

	function tile(label) {
		const t = el("div", "tile");
		t.appendChild(el("div", "k", label));
		const v = t.appendChild(el("div", "v", "\u2013"));
		const s = t.appendChild(el("div", "s", "\u00a0"));
		return { root: t, v, s };
	}

	function chart(title) {
		const c = el("div", "chart");
		c.appendChild(el("h4", null, title));
		const canvas = c.appendChild(el("canvas"));
		canvas.dataset.points = "0";
		return { root: c, canvas };
	}

	function td(tr, label) {
		const cell = tr.appendChild(el("td"));
		if (label) cell.dataset.label = label;
		const v = cell.appendChild(el("span", "v"));
		const s = cell.appendChild(el("span", "s"));
		return { cell, v, s };
	}

	/* the JSON does not say which of the two a queue_delay_ms is, so the label names both */
	const DELAY_HOW = "Queueing delay now: the queue's own measure where its kind keeps one, " +
		"otherwise its backlog over its rate.";

	const COLUMNS = ["Class", "Rate in force", "Achieved", "Accuracy", "Queue", "Drops", "ECN marks"];

	function classRow(tbody, c, color, where) {
		const tr = tbody.appendChild(el("tr"));
		const name = tr.appendChild(el("td"));
		const sw = name.appendChild(el("span", "swatch"));
		if (color) sw.style.background = color;
		name.appendChild(el("span", "name", c.name));
		name.appendChild(el("span", "kind", c.kind));
		const row = {
			conf: td(tr, COLUMNS[1]), ach: td(tr, COLUMNS[2]), acc: td(tr, COLUMNS[3]),
			queue: td(tr, COLUMNS[4]), drops: td(tr, COLUMNS[5]), marks: td(tr, COLUMNS[6]),
			x: null,
		};
		row.bar = row.ach.cell.appendChild(bar());
		const o = kindStats(c);
		if (o) {
			tr.classList.add("hasx");
			row.x = kindRow(tbody, c.kind, o, where);
		}
		return row;
	}

	/*
	 * The kind's own statistics, under the class's row (whose kind it names): its values by
	 * name on one wrapping line, then each group as a small table captioned by the kind and
	 * the member ("cake tins"), a row per element and a column per key. Markers for tests:
	 * data-class and data-kind on the row, data-key on each value and table.
	 */
	function kindRow(tbody, kind, o, where) {
		const tr = tbody.appendChild(el("tr", "xstats"));
		tr.dataset.class = where;
		tr.dataset.kind = kind;
		const cell = tr.appendChild(el("td"));
		cell.colSpan = COLUMNS.length;
		const x = { vals: new Map(), groups: new Map() };
		const keys = Object.keys(o).filter((k) => isScalar(o[k]));
		if (keys.length) {
			const line = cell.appendChild(el("div", "xvals"));
			for (const k of keys) {
				const item = line.appendChild(el("span", "xv"));
				item.dataset.key = k;
				item.appendChild(el("span", "xk", xLabel(k) + " "));
				x.vals.set(k, item.appendChild(el("b")));
			}
		}
		for (const k of Object.keys(o).filter((m) => isGroup(o[m]) && o[m].length)) {
			const cols = groupKeys(o[k]);
			const t = cell.appendChild(el("div", "tablewrap")).appendChild(el("table", "xgroup"));
			t.dataset.key = k;
			t.appendChild(el("caption", null, kind + " " + xLabel(k)));
			const hr = t.appendChild(el("thead")).appendChild(el("tr"));
			for (const col of cols) hr.appendChild(el("th", null, xLabel(col)));
			const body = t.appendChild(el("tbody"));
			const rows = o[k].map(() => {
				const r = body.appendChild(el("tr"));
				return cols.map(() => r.appendChild(el("td")));
			});
			x.groups.set(k, { cols, rows });
		}
		return x;
	}

	function dirView(link, d) {
		const root = el("section", "dir");
		const head = root.appendChild(el("header"));
		const h3 = head.appendChild(el("h3"));
		h3.appendChild(el("span", "arrow", d.direction === "egress" ? "\u2191 " : "\u2193 "));
		h3.appendChild(document.createTextNode(d.direction));
		const meta = head.appendChild(el("span", "muted"));
		const tiles = root.appendChild(el("div", "tiles"));
		const v = {
			link: link.name, direction: d.direction, root, meta,
			rate: tile("Achieved rate"), acc: tile("Shaping accuracy"), delay: tile("Queue delay"),
			backlog: tile("Queue depth"), drops: tile("Drops"), marks: tile("ECN marks"),
			rows: [], lines: [],
		};
		for (const t of [v.rate, v.acc, v.delay, v.backlog, v.drops, v.marks]) tiles.appendChild(t.root);
		v.delay.root.title = DELAY_HOW;
		v.rateBar = v.rate.root.appendChild(bar());
		if (d.latency) {
			const lt = root.appendChild(el("div", "tiles latency"));
			v.lat = { grade: tile("Bufferbloat grade"), induced: tile("Induced latency"),
				idle: tile("Idle RTT"), loaded: tile("Loaded RTT"), loss: tile("Probe loss") };
			for (const k of ["grade", "induced", "idle", "loaded", "loss"]) lt.appendChild(v.lat[k].root);
			v.lat.grade.v.classList.add("grade");
		}

		const total = seriesFor(link.name + "/" + d.direction + "/total");
		v.lines.push({ name: "total", s: total, color: cssVar("--total"), width: 2.2 });
		d.classes.slice(0, MAX_CHART_CLASSES).forEach((c, i) => {
			/* one queue that carries the direction's whole rate (tbf's, cake's): the total's line */
			if (d.classes.length === 1 &&
				c.rate_in_force_bits_per_second === d.rate_in_force_bits_per_second &&
				c.ceil_bits_per_second === d.rate_in_force_bits_per_second) return;
			v.lines.push({ name: c.name, s: seriesFor(link.name + "/" + d.direction + "/" + c.name),
				color: PALETTE[i % PALETTE.length], width: 1.5 });
		});

		const charts = root.appendChild(el("div", "charts"));
		v.rateChart = chart("Rate vs the rate in force");
		v.delayChart = chart("Queue delay");
		v.dropChart = chart("Drops per second");
		/* beside the queue delay: what that queue does to a probe's round trip */
		v.latChart = d.latency ? chart("Latency: idle baseline, loaded p50 / p99") : null;
		for (const c of [v.rateChart, v.delayChart, v.latChart, v.dropChart])
			if (c) charts.appendChild(c.root);
		const legend = root.appendChild(el("div", "legend"));
		for (const ln of v.lines) {
			const s = legend.appendChild(el("span"));
			s.appendChild(el("i")).style.background = ln.color;
			s.appendChild(document.createTextNode(ln.name));
		}
		const ref = legend.appendChild(el("span"));
		ref.appendChild(el("i", "dash"));
		ref.appendChild(document.createTextNode(d.autorate ? "shaper rate now" : "rate in force"));
		/* autorate: the shaper's rate over time, beside the achieved rate */
		v.shaperLine = d.autorate ? { s: total, key: "shaper", color: cssVar("--warn"), width: 2 } : null;
		if (v.shaperLine) {
			const sh = legend.appendChild(el("span"));
			sh.appendChild(el("i")).style.background = v.shaperLine.color;
			sh.appendChild(document.createTextNode("shaper rate (autorate)"));
		}
		if (v.latChart) {
			v.latLines = [["base", "idle baseline", "--good"], ["p50", "loaded p50", "--accent"],
				["p99", "loaded p99", "--bad"]].map(([key, name, color]) => {
				const s = legend.appendChild(el("span"));
				s.appendChild(el("i")).style.background = cssVar(color);
				s.appendChild(document.createTextNode(name));
				return { s: total, key, color: cssVar(color), width: key === "base" ? 2 : 1.5 };
			});
		}

		const wrap = root.appendChild(el("div", "tablewrap"));
		const table = wrap.appendChild(el("table", "classes"));
		const hr = table.appendChild(el("thead")).appendChild(el("tr"));
		for (const h of COLUMNS) hr.appendChild(el("th", null, h));
		hr.children[COLUMNS.indexOf("Queue")].title = DELAY_HOW;
		const tbody = table.appendChild(el("tbody"));
		d.classes.forEach((c) => {
			const line = v.lines.find((ln) => ln.name === c.name);
			v.rows.push(classRow(tbody, c, line ? line.color : null,
				link.name + "/" + d.direction + "/" + c.name));
		});
		return v;
	}

	/* Ids by "link/direction", for links and for the tests, which find every figure, table
	 * and chart by them (tests/webui/cdp.py): "dir:wan/egress", "figures:", "latency:",
	 * "classes:", "chart-rate:", "chart-delay:", "chart-latency:", "chart-drops:". */
	function setIds(v) {
		const k = v.link + "/" + v.direction;
		v.root.id = "dir:" + k;
		v.rate.root.parentNode.id = "figures:" + k;
		if (v.lat) v.lat.grade.root.parentNode.id = "latency:" + k;
		v.root.querySelector("table.classes").id = "classes:" + k;
		for (const [name, c] of [["rate", v.rateChart], ["delay", v.delayChart],
			["latency", v.latChart], ["drops", v.dropChart]])
			if (c) c.canvas.id = "chart-" + name + ":" + k;
	}

	function buildLayout(status) {
		const main = document.getElementById("links");
		main.textContent = "";
		st.dirs = [];
		if (!status.links.length) {
			main.appendChild(el("p", "waiting", status.sample ? "No links configured." :
				"Waiting for the first sample\u2026"));
			return;
		}
		for (const link of status.links) {
			const sec = main.appendChild(el("section", "link"));
			const h2 = sec.appendChild(el("h2", null, link.name + " "));
			h2.appendChild(el("span", "muted", link.interface));
			// a container gatewayd-cni registered: who it is
			if (link.cni)
				h2.appendChild(el("span", "muted", " container " + link.cni.container_id +
					" (" + link.cni.ifname + " in " + link.cni.netns + ")"));
			if (link.present === false) {
				/* nothing is shaped, so nothing to chart: said instead */
				sec.appendChild(el("p", "waiting", "waiting for " + link.interface));
				continue;
			}
			const dirs = sec.appendChild(el("div", "dirs"));
			for (const d of link.directions) {
				if (d.foreign_hook) {
					/* someone else's hook holds this direction: not shaped, no counters */
					dirs.appendChild(el("p", "waiting", d.direction + " not shaped: " +
						link.interface + " has a " + d.foreign_hook +
						" hook that gatewayd did not create"));
					continue;
				}
				const v = dirView(link, d);
				dirs.appendChild(v.root);
				setIds(v);
				st.dirs.push(v);
			}
		}
	}

	/* ---- updates ---- */

	function updateClassRow(row, c) {
		setText(row.conf.v, fmtRate(c.rate_in_force_bits_per_second));
		setText(row.conf.s, c.ceil_bits_per_second !== c.rate_in_force_bits_per_second ?
			"ceil " + fmtRate(c.ceil_bits_per_second) : "");
		setText(row.ach.v, fmtRate(c.achieved_bits_per_second));
		const ofCeil = c.achieved_bits_per_second / (c.ceil_bits_per_second || 1);
		setText(row.ach.s, isFinite(ofCeil) ? (ofCeil * 100).toFixed(0) + " % of ceil" : "");
		setBar(row.bar, ofCeil);
		const a = accuracy(c);
		setText(row.acc.v, a.text, a.cls);
		setText(row.queue.v, fmtMs(c.queue_delay_ms));
		setText(row.queue.s, fmtBytes(c.backlog_bytes) + " \u00b7 " + fmtCount(c.backlog_packets) + " pkt");
		setText(row.drops.v, fmtPerS(c.drops_per_second), c.drops_per_second > 0 ? "warn" : "");
		setText(row.drops.s, fmtCount(c.dropped_packets) + " total");
		setText(row.marks.v, fmtPerS(c.ecn_marks_per_second));
		setText(row.marks.s, fmtCount(c.ecn_marked_packets) + " total");
		const o = kindStats(c);
		if (row.x && o) updateKind(row.x, o);
	}

	function updateKind(x, o) {
		for (const [k, b] of x.vals) setText(b, xValue(k, o[k]));
		for (const [k, g] of x.groups)
			(o[k] || []).forEach((e, i) => g.rows[i] && g.cols.forEach((col, j) =>
				setText(g.rows[i][j], xValue(col, e[col]))));
	}

	function updateDir(v, d) {
		const t = d.total;
		setText(v.meta, d.shaper + " on " + d.device + " \u00b7 " + fmtRate(d.rate_in_force_bits_per_second) +
			(d.autorate ? " \u00b7 autorate " + d.autorate.state + " (" + fmtRate(d.autorate.min_bits_per_second) +
				" \u2013 " + fmtRate(d.autorate.max_bits_per_second) + ")" : ""));
		setText(v.rate.v, fmtRate(t.achieved_bits_per_second));
		setText(v.rate.s, "of " + fmtRate(d.rate_in_force_bits_per_second) + (isFinite(t.utilisation) &&
			t.utilisation !== null ? " \u00b7 " + (t.utilisation * 100).toFixed(0) + " %" : ""));
		setBar(v.rateBar, t.achieved_bits_per_second / (d.rate_in_force_bits_per_second || 1));
		const a = accuracy(t);
		setText(v.acc.v, a.text, a.cls);
		setText(v.acc.s, t.saturated ? "achieved / rate in force" : "queue not backlogged");
		setText(v.delay.v, fmtMs(t.queue_delay_ms));
		setText(v.delay.s, "own or backlog / rate");
		setText(v.backlog.v, fmtBytes(t.backlog_bytes));
		setText(v.backlog.s, fmtCount(t.backlog_packets) + " packets");
		setText(v.drops.v, fmtPerS(t.drops_per_second), t.drops_per_second > 0 ? "warn" : "");
		setText(v.drops.s, fmtCount(t.dropped_packets) + " total");
		setText(v.marks.v, fmtPerS(t.ecn_marks_per_second));
		setText(v.marks.s, fmtCount(t.ecn_marked_packets) + " total");
		d.classes.forEach((c, i) => v.rows[i] && updateClassRow(v.rows[i], c));
		v.rateRef = d.rate_in_force_bits_per_second;
		if (v.lat && d.latency) updateLatency(v.lat, d.latency);
	}

	/* DSLReports' bands: A+ and A are good, B and C so-so, D and F bloated */
	function gradeClass(g) {
		return !g ? "idle" : g[0] === "A" ? "good" : g === "B" || g === "C" ? "warn" : "bad";
	}

	function fmtLoss(r) {
		if (r === null || !isFinite(r)) return "\u2013";
		return (r * 100).toFixed(r >= 0.1 ? 0 : 1) + " %";
	}

	function updateLatency(t, l) {
		setText(t.grade.v, l.grade || "no load yet", gradeClass(l.grade));
		setText(t.grade.s, l.grade ? "mean induced " + fmtMs(l.induced_mean_ms) : "needs loaded samples");
		setText(t.induced.v, l.induced_p50_ms === null ? "\u2013" : "+" + fmtMs(l.induced_p50_ms));
		setText(t.induced.s, "p50 \u00b7 p99 +" + fmtMs(l.induced_p99_ms));
		setText(t.idle.v, fmtMs(l.baseline_ms));
		setText(t.idle.s, "baseline \u00b7 p50 " + fmtMs(l.idle.p50_ms) + " \u00b7 " + fmtCount(l.idle.samples));
		setText(t.loaded.v, fmtMs(l.loaded.p50_ms));
		setText(t.loaded.s, "p99 " + fmtMs(l.loaded.p99_ms) + " \u00b7 jitter " + fmtMs(l.loaded.jitter_ms));
		setText(t.loss.v, fmtLoss(l.loaded.loss), l.loaded.loss > 0.01 ? "warn" : "");
		setText(t.loss.s, "loaded \u00b7 idle " + fmtLoss(l.idle.loss));
	}

	/* A load test direction's flows: a bar each (download, then upload), their range and
	 * Jain's fairness; a dash when the sink gave sums only (iperf3). */
	function flowCell(d) {
		const td = el("td", "flows");
		const fin = (a) => (a || []).map((v) => (isFinite(v) && v !== null ? v : 0));
		const down = fin(d.download_flow_bits_per_second), up = fin(d.upload_flow_bits_per_second);
		const all = down.concat(up);
		if (!all.length) {
			td.textContent = "\u2013";
			return td;
		}
		const max = Math.max(...all) || 1;
		const bars = td.appendChild(el("span", "flowbars"));
		const add = (v, cls, i) => {
			const b = bars.appendChild(el("span", "fb " + cls));
			b.style.height = Math.max(1, Math.round(16 * v / max)) + "px";
			b.title = cls + " flow " + (i + 1) + ": " + fmtRate(v);
		};
		down.forEach((v, i) => add(v, "download", i));
		if (down.length && up.length) bars.appendChild(el("span", "fbgap"));
		up.forEach((v, i) => add(v, "upload", i));
		td.appendChild(el("span", "flowrange", " " + fmtRateShort(Math.min(...all)) + "\u2013" +
			fmtRateShort(max) + (isFinite(d.fairness) && d.fairness !== null ?
				", Jain " + d.fairness.toFixed(3) : "")));
		return td;
	}

	/* the prober's targets and the last load test, above the links */
	function updateProbe(status) {
		const box = document.getElementById("probe");
		const p = status.probe, lt = status.loadtest;
		box.hidden = !p && !lt;
		box.textContent = "";
		/* one line per probed link where the daemon lists them (a link's own probe block) */
		for (const q of status.probes || (p ? [p] : [])) {
			const h = box.appendChild(el("div", "probehead"));
			h.appendChild(el("b", null, "Latency probe"));
			h.appendChild(document.createTextNode(" " + q.method + " every " +
				fmtMs(q.interval_seconds * 1000) + " through link " + q.link +
				(q.source ? " from " + q.source : "") + ": "));
			for (const t of q.targets) {
				const c = h.appendChild(el("span", "target " + (t.up ? "up" : "down")));
				c.appendChild(el("span", "name", t.host));
				/* one-way delays (udp, icmp-timestamp): right up to the two clocks' offset */
				const owd = t.up && t.last_owd_up_ms != null && t.last_owd_down_ms != null ?
					" (\u2191 " + fmtSignedMs(t.last_owd_up_ms) + " \u2193 " +
					fmtSignedMs(t.last_owd_down_ms) + ")" : "";
				c.appendChild(document.createTextNode(t.up ? " " + fmtMs(t.last_rtt_ms) + owd :
					" down"));
				c.title = fmtCount(t.received) + " of " + fmtCount(t.sent) + " answered, " +
					fmtCount(t.lost) + " lost, " + fmtCount(t.reordered) + " reordered" +
					(owd ? "; one-way delays up and down, right up to the offset between " +
						"the target's clock and ours" : "");
			}
		}
		if (lt) {
			const h = box.appendChild(el("div", "probehead"));
			h.appendChild(el("b", null, lt.running ? "Load test running" : "Last load test"));
			h.appendChild(document.createTextNode(" " + (lt.running ?
				"since " + fmtClock(lt.started_unix_seconds) :
				"at " + fmtClock(lt.finished_unix_seconds)) + " to " + (lt.sink || "?")));
			if (lt.error) h.appendChild(el("span", "bad", " \u2013 " + lt.error));
			const t = box.appendChild(el("div", "tablewrap")).appendChild(el("table", "loadtest"));
			t.id = "loadtest";
			const hr = t.appendChild(el("thead")).appendChild(el("tr"));
			for (const x of ["Direction", "Goodput", "Per flow", "Idle p50", "Loaded p50 / p99", "Induced mean / p99", "Grade"])
				hr.appendChild(el("th", null, x));
			const body = t.appendChild(el("tbody"));
			for (const d of lt.directions) {
				const r = body.appendChild(el("tr"));
				r.appendChild(el("td", null, d.direction));
				r.appendChild(el("td", null, fmtRate(d.goodput_bits_per_second)));
				r.appendChild(flowCell(d));
				r.appendChild(el("td", null, fmtMs(d.idle_p50_ms)));
				r.appendChild(el("td", null, fmtMs(d.loaded_p50_ms) + " / " + fmtMs(d.loaded_p99_ms)));
				r.appendChild(el("td", null, fmtMs(d.induced_mean_ms) + " / " + fmtMs(d.induced_p99_ms)));
				r.appendChild(el("td", "grade " + gradeClass(d.grade), d.grade || "\u2013"));
			}
		}
	}

	function record(status) {
		const t = status.sample.time_unix_seconds;
		let added = false;
		for (const link of status.links)
			for (const d of link.directions)
				for (const c of d.total ? [d.total].concat(d.classes) : []) {
					const key = link.name + "/" + d.direction + "/" + (c === d.total ? "total" : c.name);
					const s = st.series.get(key);
					const l = c === d.total && d.latency;
					const a = c === d.total && d.autorate;
					if (s && s.push(t, c.achieved_bits_per_second, c.queue_delay_ms,
						c.drops_per_second, l ? [l.baseline_ms, l.interval_loaded_p50_ms,
							l.interval_loaded_p99_ms] : null, a ? a.rate_bits_per_second : null))
						added = true;
				}
		return added;
	}

	function drawAll(now) {
		const gap = Math.max(3 * st.intervalS, 2.5);
		for (const v of st.dirs) {
			const rate = v.lines.map((l) => ({ s: l.s, key: "rate", color: l.color, width: l.width }));
			drawChart(v.rateChart.canvas, v.shaperLine ? rate.concat([v.shaperLine]) : rate,
				{ now, fmt: fmtRateShort, floor: 1000, ref: v.rateRef, gap });
			drawChart(v.delayChart.canvas, rate.map((l) => Object.assign({}, l, { key: "delay" })),
				{ now, fmt: (x) => trim(x) + "ms", floor: 1, ref: 0, gap });
			drawChart(v.dropChart.canvas, rate.map((l) => Object.assign({}, l, { key: "drops" })),
				{ now, fmt: (x) => trim(x), floor: 1, ref: 0, gap });
			if (v.latChart)
				drawChart(v.latChart.canvas, v.latLines, { now, fmt: (x) => trim(x) + "ms", floor: 1,
					ref: 0, gap });
		}
	}

	function updateSampler(status) {
		const box = document.getElementById("sampler");
		const s = status.sample;
		box.textContent = "";
		const item = (k, v) => {
			const span = box.appendChild(el("span", null, k + " "));
			span.appendChild(el("b", null, v));
		};
		if (!s) {
			item("Sampler", "no sample yet");
			return;
		}
		item("Sample", "#" + s.seq + " at " + fmtClock(s.time_unix_seconds));
		item("every", trim(s.interval_seconds) + " s");
		item("took", fmtMs(s.duration_ms));
		item("started late by", fmtMs(s.lag_ms));
		item("late passes", fmtCount(s.late_samples_total) + " of " + fmtCount(s.samples_total));
		item("up", fmtDuration(s.uptime_seconds));
		// the web process died and was started again: how long the page was gone
		if (status.web && status.web.down_s > 0)
			item("web process was down", trim(Math.round(status.web.down_s * 10) / 10) + " s");
	}

	function updateHealth(status) {
		const h = document.getElementById("health");
		const text = status.healthy ? "healthy" : (status.health_reason || "unhealthy");
		setText(h, text);
		h.className = "health " + (status.healthy ? "ok" : "bad");
		const err = status.sample && status.sample.last_error;
		banner(err ? "Last error: " + err : "", false);
	}

	function banner(text, bad) {
		const b = document.getElementById("banner");
		b.hidden = !text;
		setText(b, text);
		b.classList.toggle("bad", !!bad);
	}

	async function loadHistory(v, line) {
		const q = new URLSearchParams({ link: v.link, direction: v.direction, class: line.name });
		const res = await fetch("/api/history?" + q.toString(), { cache: "no-store" });
		// a container that went between the status and this request has no history: its
		// section goes with the next poll
		if (res.status === 404 && (v.link.startsWith("ctr:") || v.link.startsWith("cni:"))) return;
		if (!res.ok) throw new Error("history " + res.status);
		const h = await res.json();
		line.s.prepend(h.points, h.columns);
		st.historyLoaded++;
		document.body.dataset.history = String(st.historyLoaded);
	}

	function loadAllHistory() {
		const jobs = [];
		for (const v of st.dirs)
			for (const line of v.lines)
				if (!line.loaded) {
					line.loaded = true;
					jobs.push(loadHistory(v, line));
				}
		return Promise.all(jobs).then(() => drawAll(chartNow()), (e) => fail(e));
	}

	function apply(status) {
		const key = layoutKey(status);
		if (key !== st.layout) {
			st.layout = key;
			buildLayout(status);
			if (status.sample) loadAllHistory();
		}
		document.getElementById("version").textContent = "v" + status.gatewayd_version;
		updateHealth(status);
		updateSampler(status);
		updateProbe(status);
		if (!status.sample) return;
		st.intervalS = status.sample.interval_seconds || 1;
		const seq = status.sample.seq;
		if (st.firstSeq === null) st.firstSeq = seq;
		if (seq !== st.lastSeq) {
			st.changes += st.lastSeq === null ? 0 : 1;
			st.lastSeq = seq;
		}
		status.links.forEach((l) => l.directions.forEach((d) => {
			const v = st.dirs.find((x) => x.link === l.name && x.direction === d.direction);
			if (v && d.total) updateDir(v, d);
		}));
		record(status);
		const now = status.sample.time_unix_seconds;
		st.lastT = now;
		for (const s of st.series.values()) s.trim(now - HISTORY_S);
		drawAll(now);
		Object.assign(document.body.dataset, {
			firstSeq: String(st.firstSeq), lastSeq: String(st.lastSeq), changes: String(st.changes),
		});
	}

	function fail(e) {
		st.errors++;
		document.body.dataset.errors = String(st.errors);
		banner("Cannot reach gatewayd: " + (e && e.message ? e.message : e) + " \u2013 retrying", true);
		const h = document.getElementById("health");
		setText(h, "no connection");
		h.className = "health bad";
	}

	async function poll() {
		clearTimeout(st.timer);
		try {
			const res = await fetch("/api/status", { cache: "no-store" });
			/* 503 before the first sample still carries the status document */
			if (!res.ok && res.status !== 503) throw new Error("HTTP " + res.status);
			apply(await res.json());
			st.updates++;
			document.body.dataset.updates = String(st.updates);
		} catch (e) {
			fail(e);
		}
		st.timer = setTimeout(poll, Math.max(500, st.intervalS * 1000));
	}

	/* the last `gatewayd --compare` (compare_dir): shown only when /api/compare answers 200 */
	function renderCompare(c) {
		const box = document.getElementById("lastcmp");
		box.textContent = "";
		const h = box.appendChild(el("h2", null, "Last comparison"));
		h.appendChild(el("span", "muted", " " + new Date(c.generated_unix * 1000).toLocaleString()));
		const cfg = c.config || {};
		const rtt = cfg.netem === false ? "no netem (no added delay)" : "RTT " + fmtMs(cfg.rtt_ms);
		box.appendChild(el("p", "muted", "rate " + fmtRate(cfg.rate_bps) + " each way \u00b7 " + rtt +
			" \u00b7 " + cfg.duration_s + " s per queue \u00b7 " + (c.kernel || "?") + " kernel " +
			(c.kernel_release || "") + " \u00b7 gatewayd " + (c.gatewayd_version || "?")));
		/* the page's rows of the bench's own table (webui/benchrows.c), each cell as the
		 * bench's terminal prints it: the server sends both, the page keeps no list */
		const rows = c.rows || [];
		const t = box.appendChild(el("div", "tablewrap")).appendChild(el("table", "cmp"));
		t.id = "lastcmp-table";
		const hr = t.appendChild(el("thead")).appendChild(el("tr"));
		hr.appendChild(el("th", null, "Queue"));
		for (const row of rows) hr.appendChild(el("th", null, row.label));
		const body = t.appendChild(el("tbody"));
		for (const r of c.runs) {
			const tr = body.appendChild(el("tr"));
			tr.dataset.qdisc = r.qdisc;
			tr.appendChild(el("td", null, r.label || r.qdisc));
			if (!r.ran) {
				const n = tr.appendChild(el("td", "muted", r.note || "did not run"));
				n.colSpan = Math.max(rows.length, 1);
				continue;
			}
			rows.forEach((row, i) => {
				const v = (r.cells || [])[i];
				const cls = row.kind === "grade" ? "grade " + gradeClass(v) : null;
				tr.appendChild(el("td", cls, v === undefined || v === "" ? "\u2013" : v));
			});
		}
		const plots = box.appendChild(el("div", "plots"));
		plots.id = "lastcmp-plots";
		for (const name of c.plots || []) {
			const a = plots.appendChild(el("a"));
			a.href = "/compare/" + encodeURIComponent(name);
			const img = a.appendChild(el("img"));
			img.src = a.href;
			img.alt = name;
		}
		box.hidden = false;
	}

	async function loadCompare() {
		try {
			const res = await fetch("/api/compare", { cache: "no-store" });
			const box = document.getElementById("lastcmp");
			if (!res.ok) {
				box.hidden = true;
				st.compareKey = "";
				return;
			}
			const c = await res.json();
			const key = c.generated_unix + "/" + c.file_mtime_unix;
			if (key !== st.compareKey) {
				st.compareKey = key;
				renderCompare(c);
			}
		} catch (e) {
			/* the status poll reports a lost connection */
		}
	}

	function setWindow(s) {
		st.windowS = s;
		for (const b of document.querySelectorAll(".window button"))
			b.classList.toggle("on", Number(b.dataset.window) === s);
		drawAll(chartNow());
	}

	/* the charts' right edge: the server's clock (the last sample), not this device's */
	function chartNow() {
		return st.lastT || Date.now() / 1000;
	}

	document.querySelectorAll(".window button").forEach((b) =>
		b.addEventListener("click", () => setWindow(Number(b.dataset.window))));
	let resizeTimer = 0;
	window.addEventListener("resize", () => {
		clearTimeout(resizeTimer);
		resizeTimer = setTimeout(() => drawAll(chartNow()), 100);
	});
	poll();
	loadCompare();
	setInterval(loadCompare, 60000);
})();
