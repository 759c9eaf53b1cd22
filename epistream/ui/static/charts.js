/* Small SVG charts for the inspector: no library, no network. Each function returns an <svg> element.
   Data are plain arrays; colours come from one palette so a type keeps its colour across charts. */
"use strict";

const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#3b6fb6", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#e07a5f", "#555b6e",
    "#2a9d8f", "#b5838d", "#6d597a", "#a3a380"];
  const colours = new Map();

  function colour(name) {
    if (!colours.has(name)) colours.set(name, PALETTE[colours.size % PALETTE.length]);
    return colours.get(name);
  }

  function el(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function frame(width, height) {
    return el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "chart" });
  }

  function niceMax(value) {
    if (!(value > 0)) return 1;
    const exp = Math.pow(10, Math.floor(Math.log10(value)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= value) return m * exp;
    return 10 * exp;
  }

  function axes(svg, box, yMax, yFormat) {
    const { x0, y0, x1, y1 } = box;
    for (let i = 0; i <= 4; i++) {
      const y = y1 - ((y1 - y0) * i) / 4;
      svg.appendChild(el("line", { x1: x0, x2: x1, y1: y, y2: y, class: "grid" }));
      svg.appendChild(el("text", { x: x0 - 6, y: y + 4, "text-anchor": "end", class: "tick" },
        yFormat((yMax * i) / 4)));
    }
  }

  function legend(svg, names, x, y) {
    names.forEach((name, i) => {
      const cx = x + (i % 3) * 170;
      const cy = y + Math.floor(i / 3) * 16;
      svg.appendChild(el("rect", { x: cx, y: cy - 9, width: 10, height: 10, fill: colour(name) }));
      svg.appendChild(el("text", { x: cx + 14, y: cy, class: "legend" }, name));
    });
  }

  /* Stacked bars: categories along x (days), one stack per category of series values. */
  function stackedBars(days, series, opts = {}) {
    const names = Object.keys(series);
    const rows = Math.ceil(names.length / 3);
    const width = opts.width || 620, height = (opts.height || 240) + rows * 16;
    const svg = frame(width, height);
    const box = { x0: 44, y0: 10, x1: width - 10, y1: (opts.height || 240) - 40 };
    const totals = days.map((_, i) => names.reduce((s, n) => s + (series[n][i] || 0), 0));
    const yMax = niceMax(Math.max(0, ...totals));
    axes(svg, box, yMax, (v) => (Number.isInteger(v) ? v : v.toFixed(1)));
    const slot = (box.x1 - box.x0) / Math.max(1, days.length);
    days.forEach((day, i) => {
      let acc = 0;
      for (const name of names) {
        const v = series[name][i] || 0;
        if (!v) continue;
        const h = ((box.y1 - box.y0) * v) / yMax;
        const y = box.y1 - ((box.y1 - box.y0) * acc) / yMax - h;
        const rect = el("rect", { x: box.x0 + i * slot + slot * 0.15, y, width: slot * 0.7, height: h,
          fill: colour(name) });
        rect.appendChild(el("title", {}, `${day} · ${name}: ${v}`));
        svg.appendChild(rect);
        acc += v;
      }
      if (days.length <= 16 || i % Math.ceil(days.length / 16) === 0) {
        svg.appendChild(el("text", { x: box.x0 + i * slot + slot / 2, y: box.y1 + 14, "text-anchor": "middle",
          class: "tick" }, day.slice(5)));
      }
    });
    legend(svg, names, box.x0, box.y1 + 34);
    return svg;
  }

  /* Lines over shared x labels; values may be null (gap). */
  function lines(labels, series, opts = {}) {
    const names = Object.keys(series);
    const width = opts.width || 620, height = opts.height || 240;
    const svg = frame(width, height + 16 * Math.ceil(names.length / 3));
    const box = { x0: 52, y0: 10, x1: width - 50, y1: height - 40 };
    const all = names.flatMap((n) => series[n]).filter((v) => v !== null && v !== undefined);
    const yMax = opts.yMax || niceMax(Math.max(0, ...all));
    const fmt = opts.format || ((v) => (yMax <= 1 ? v.toFixed(2) : Math.round(v)));
    axes(svg, box, yMax, fmt);
    const n = labels.length;
    const xAt = (i) => (n <= 1 ? (box.x0 + box.x1) / 2 : box.x0 + ((box.x1 - box.x0) * i) / (n - 1));
    const yAt = (v) => box.y1 - ((box.y1 - box.y0) * v) / yMax;
    for (const name of names) {
      const points = series[name].map((v, i) => (v === null || v === undefined ? null : [xAt(i), yAt(v)]));
      let path = "";
      points.forEach((p, i) => { if (p) path += `${path && points[i - 1] ? "L" : "M"}${p[0]},${p[1]}`; });
      if (path) svg.appendChild(el("path", { d: path, fill: "none", stroke: colour(name), "stroke-width": 2 }));
      points.forEach((p, i) => {
        if (!p) return;
        const dot = el("circle", { cx: p[0], cy: p[1], r: 3.5, fill: colour(name) });
        dot.appendChild(el("title", {}, `${labels[i]} · ${name}: ${fmt(series[name][i])}`));
        svg.appendChild(dot);
      });
    }
    labels.forEach((label, i) => {
      if (n <= 12 || i % Math.ceil(n / 12) === 0) {
        svg.appendChild(el("text", { x: xAt(i), y: box.y1 + 14, "text-anchor": "middle", class: "tick" }, label));
      }
    });
    legend(svg, names, box.x0, box.y1 + 34);
    return svg;
  }

  /* Horizontal bars: [[label, value], ...]. */
  function hbars(pairs, opts = {}) {
    const width = opts.width || 620, row = 24;
    const height = Math.max(1, pairs.length) * row + 20;
    const svg = frame(width, height);
    const x0 = 210, x1 = width - 50;
    const max = niceMax(Math.max(0, ...pairs.map((p) => p[1])));
    pairs.forEach(([label, value], i) => {
      const y = 8 + i * row;
      svg.appendChild(el("text", { x: x0 - 8, y: y + 14, "text-anchor": "end", class: "label" }, label));
      const rect = el("rect", { x: x0, y, width: ((x1 - x0) * value) / max, height: row - 8,
        fill: colour(opts.colourBy ? label : "bars") });
      rect.appendChild(el("title", {}, `${label}: ${value}`));
      svg.appendChild(rect);
      svg.appendChild(el("text", { x: x0 + ((x1 - x0) * value) / max + 6, y: y + 14, class: "tick" }, value));
    });
    if (!pairs.length) svg.appendChild(el("text", { x: 10, y: 20, class: "tick" }, "nothing recorded"));
    return svg;
  }

  /* One range per row (p10..p90 with the median and mean marked) on a 0..1 axis. */
  function ranges(rows, opts = {}) {
    const width = opts.width || 620, row = 30;
    const svg = frame(width, rows.length * row + 40);
    const x0 = 170, x1 = width - 20;
    const xAt = (v) => x0 + (x1 - x0) * v;
    for (let i = 0; i <= 10; i += 2) {
      svg.appendChild(el("line", { x1: xAt(i / 10), x2: xAt(i / 10), y1: 4, y2: rows.length * row + 6,
        class: "grid" }));
      svg.appendChild(el("text", { x: xAt(i / 10), y: rows.length * row + 22, "text-anchor": "middle",
        class: "tick" }, (i / 10).toFixed(1)));
    }
    rows.forEach((r, i) => {
      const y = 8 + i * row;
      svg.appendChild(el("text", { x: x0 - 8, y: y + 13, "text-anchor": "end", class: "label" },
        `${r.name} (${r.count})`));
      const bar = el("rect", { x: xAt(r.low), y, width: Math.max(2, xAt(r.high) - xAt(r.low)), height: 18,
        fill: colour(r.name), opacity: 0.55 });
      bar.appendChild(el("title", {}, `${r.name}: p10 ${r.low} · p50 ${r.mid} · p90 ${r.high} · mean ${r.mean}`));
      svg.appendChild(bar);
      svg.appendChild(el("line", { x1: xAt(r.mid), x2: xAt(r.mid), y1: y - 2, y2: y + 20, stroke: "#222",
        "stroke-width": 2 }));
      svg.appendChild(el("circle", { cx: xAt(r.mean), cy: y + 9, r: 4, fill: "#fff", stroke: "#222" }));
    });
    return svg;
  }

  return { colour, stackedBars, lines, hbars, ranges };
})();
