// gpuscope HTML report, its charts: the roofline, per-iteration latency and the timeline, drawn
// from the embedded JSON with the kit of report_kit.js (placed before it in the page).
(function () {
  const { fmtDur, fmtBytes, fmtCount, shorten, el, svgEl, section, data } =
    gpuscopeKit;
  const A = data.analysis, S = A.summary;

  // ---- roofline (log-log: arithmetic intensity vs achieved TFLOP/s; roofs from the device) ----
  section('roofline', () => {
    const svg = document.getElementById('roofline-chart');
    const R = data.roofline, D = R.device;
    const pts = R.ops.filter((o) => o.flops > 0 && o.bytes > 0 && o.gpu_ns > 0);
    const note = document.getElementById('roofline-note');
    const share = R.kernel_ns ? (100 * R.modelled_ns / R.kernel_ns).toFixed(1) : '0';
    note.textContent = (D.name ? D.name + ' (' + D.identified + ')' : 'device unknown: ' + D.identified) +
      '; ' + share + '% of the kernel time modelled; one point per op signature, area = GPU time' +
      (R.ops.length > pts.length ? '; ' + (R.ops.length - pts.length) + ' without FLOPs (copies, gathers) not drawn' : '');
    if (!pts.length) {
      svg.replaceWith(el('div', { class: 'empty', id: 'roofline-chart' },
        'No op with recorded shapes and a work model in the steady state (profile with record_shapes=True; gpuscope help roofline).'));
      return;
    }
    const roofs = [];
    if (D.name) {
      const seen = {};
      for (const k of ['fp8', 'bf16', 'fp16', 'tf32', 'fp32', 'fp64']) {
        const v = D.peak_tflops[k];
        if (v && !seen[v]) { seen[v] = 1; roofs.push({ label: k + ' ' + v.toFixed(0), tflops: v }); }
        else if (v) roofs.find((r) => r.tflops === v).label += ', ' + k;
      }
      const vec = D.peak_tflops.vector_fp32;
      if (seen[vec]) roofs.find((r) => r.tflops === vec).label += ' (= fp32 vector)';
      else roofs.push({ label: 'fp32 vector ' + vec.toFixed(0), tflops: vec, vector: true });
    }
    const W = 1200, H = 360, L = 70, B = 36, T = 14, Rm = 150;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.style.height = H + 'px';
    const lg = Math.log10;
    const xs = pts.map((p) => p.intensity), ys = pts.map((p) => p.tflops).concat(roofs.map((r) => r.tflops));
    const x0 = Math.floor(lg(Math.min(...xs, 0.1))), x1 = Math.ceil(lg(Math.max(...xs, 1000)));
    const lows = pts.map((p) => p.tflops).concat(roofs.map((r) => r.tflops));
    if (D.name) lows.push(D.hbm_tbps * 10 ** x0);
    const y0 = Math.floor(lg(Math.max(1e-4, Math.min(...lows)))), y1 = Math.ceil(lg(Math.max(...ys) * 1.5));
    const X = (v) => L + (W - L - Rm) * (lg(v) - x0) / (x1 - x0);
    const Y = (v) => T + (H - T - B) * (1 - (lg(v) - y0) / (y1 - y0));
    for (let e = x0; e <= x1; e++) {
      svg.append(svgEl('line', { class: 'axis', x1: X(10 ** e), x2: X(10 ** e), y1: T, y2: H - B }));
      svg.append(svgEl('text', { x: X(10 ** e), y: H - B + 14, 'text-anchor': 'middle' }, String(10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1))));
    }
    for (let e = y0; e <= y1; e++) {
      svg.append(svgEl('line', { class: 'axis', x1: L, x2: W - Rm, y1: Y(10 ** e), y2: Y(10 ** e) }));
      svg.append(svgEl('text', { x: L - 6, y: Y(10 ** e) + 4, 'text-anchor': 'end' }, String(10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1))));
    }
    svg.append(svgEl('text', { x: (L + W - Rm) / 2, y: H - 6, 'text-anchor': 'middle' }, 'arithmetic intensity (FLOP per byte of HBM traffic)'));
    svg.append(svgEl('text', { x: 14, y: (T + H - B) / 2, transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')', 'text-anchor': 'middle' }, 'achieved TFLOP/s'));
    const xmin = 10 ** x0, xmax = 10 ** x1;
    for (const r of roofs) {
      // min(peak, bandwidth x intensity): the slanted memory roof up to the ridge, then flat.
      const bw = D.hbm_tbps, ridge = r.tflops / bw;
      const a = Math.max(xmin, Math.min(xmax, ridge));
      const d = ['M', X(xmin), Y(Math.max(10 ** y0, bw * xmin)), 'L', X(a), Y(Math.max(10 ** y0, bw * a)), 'L', X(xmax), Y(r.tflops)].join(' ');
      svg.append(svgEl('path', { class: 'roof' + (r.vector ? ' vector' : ''), d: d, fill: 'none', stroke: r.vector ? '#98a2b3' : '#c0392b', 'stroke-width': 1.5, 'stroke-dasharray': r.vector ? '4 3' : '' }));
      svg.append(svgEl('text', { x: W - Rm + 6, y: Y(r.tflops) + 4 }, r.label));
    }
    if (D.name) svg.append(svgEl('text', { x: X(xmin) + 4, y: Y(Math.max(10 ** y0, D.hbm_tbps * xmin)) - 6 }, 'HBM ' + D.hbm_tbps + ' TB/s'));
    const total = pts.reduce((s, p) => s + p.gpu_ns, 0) || 1;
    pts.forEach((p) => {
      const g = svgEl('g', { class: 'point' });
      g.append(svgEl('title', {}, p.op + ' (' + p.shape + ', ' + p.dtype + ')\n' + fmtCount(p.calls) + ' calls, ' + fmtDur(p.gpu_ns) +
        '\n' + p.tflops.toFixed(1) + ' TFLOP/s, ' + p.tbps.toFixed(2) + ' TB/s, ' + p.intensity.toFixed(1) + ' FLOP/B' +
        (p.percent_of_bound === null ? '' : '\n' + p.percent_of_bound.toFixed(1) + '% of the ' + p.bound + ' roof')));
      g.append(svgEl('circle', { cx: X(p.intensity), cy: Y(Math.max(10 ** y0, p.tflops)), r: 3 + 17 * Math.sqrt(p.gpu_ns / total), fill: 'rgba(78,121,167,.55)', stroke: '#2c5282' }));
      svg.append(g);
    });
  });

  // ---- per-iteration latency ----
  section('latency', () => {
    const svg = document.getElementById('latency-chart');
    const C = data.iteration_chart;
    const bars = C.bars;
    if (!bars.length) {
      svg.replaceWith(el('div', { class: 'empty', id: 'latency-chart' }, 'No iterations found (' + S.iteration_source + ').'));
      return;
    }
    document.getElementById('latency-note').textContent = C.per_bar > 1
      ? 'each bar: mean of ' + C.per_bar + ' iterations (min-max whisker)' : 'grey: warm-up (left out of the steady state)';
    const W = 1200, H = 240, L = 70, B = 28, T = 10, R = 10;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.style.height = H + 'px';
    const max = Math.max(...bars.map((b) => b[3]), 1);
    const y = (v) => T + (H - T - B) * (1 - v / max);
    for (let k = 0; k <= 4; k++) {
      const v = max * k / 4;
      svg.append(svgEl('line', { class: 'axis', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      svg.append(svgEl('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtDur(Math.round(v))));
    }
    const bw = (W - L - R) / bars.length;
    bars.forEach((b, i) => {
      const [num, mean, lo, hi, warm] = b;
      const x = L + i * bw;
      const g = svgEl('g');
      g.append(svgEl('title', {}, 'iteration ' + num + (C.per_bar > 1 ? ' (+' + (C.per_bar - 1) + ')' : '') + ': ' + fmtDur(mean) +
        (C.per_bar > 1 ? ' (min ' + fmtDur(lo) + ', max ' + fmtDur(hi) + ')' : '') + (warm ? ', warm-up' : '')));
      g.append(svgEl('rect', { class: 'bar' + (warm ? ' warmup' : ''), x: x + Math.min(1, bw * 0.1), y: y(mean), width: Math.max(0.5, bw * 0.8), height: Math.max(0.5, y(0) - y(mean)) }));
      if (C.per_bar > 1) g.append(svgEl('line', { class: 'axis', x1: x + bw / 2, x2: x + bw / 2, y1: y(hi), y2: y(lo), stroke: '#2c5282' }));
      svg.append(g);
    });
    if (S.iterations_total) {
      const med = S.iteration_median_ns;
      svg.append(svgEl('line', { x1: L, x2: W - R, y1: y(med), y2: y(med), stroke: '#c0392b', 'stroke-dasharray': '5 4' }));
      svg.append(svgEl('text', { x: W - R - 4, y: y(med) - 4, 'text-anchor': 'end', fill: '#c0392b' }, 'median ' + fmtDur(med)));
    }
    const step = Math.max(1, Math.ceil(bars.length / 12));
    for (let i = 0; i < bars.length; i += step) {
      svg.append(svgEl('text', { x: L + (i + 0.5) * bw, y: H - 8, 'text-anchor': 'middle' }, String(bars[i][0])));
    }
  });

  // ---- timeline (canvas; wheel = zoom at the pointer, drag = pan, double-click = reset) ----
  section('timeline', () => {
    const TL = data.timeline;
    const CATS = [
      { name: 'kernel', color: '#4e79a7' }, { name: 'memcpy', color: '#e15759' }, { name: 'memset', color: '#f28e2b' },
      { name: 'runtime API', color: '#76b7b2' }, { name: 'CPU op', color: '#59a14f' }, { name: 'annotation', color: '#edc948' },
      { name: 'Python', color: '#b07aa1' },
    ];
    const legend = document.getElementById('legend');
    for (const c of CATS) {
      const s = el('span');
      const sw = el('i');
      sw.style.background = c.color;
      s.append(sw, document.createTextNode(c.name));
      legend.append(s);
    }
    const canvas = document.getElementById('timeline');
    const info = document.getElementById('timeline-info');
    const span = Math.max(1, TL.end_ns - TL.start_ns);
    info.textContent = (TL.iteration >= 0 ? 'iteration ' + TL.iteration + ' (closest to the median latency), ' : 'steady window, ') +
      fmtDur(span) + ', ' + fmtCount(TL.events_shown) + ' events' +
      (TL.events_shown < TL.events_in_window ? ' shown of ' + fmtCount(TL.events_in_window) + ' (the longest; shorter ones left out)' : '');
    if (!TL.events.length) {
      canvas.replaceWith(el('div', { class: 'empty', id: 'timeline' }, 'No events in the window.'));
      return;
    }
    // Rows: nesting depth per track (events are sorted by track, start, longest first).
    const MAX_DEPTH = 16, ROW = 14, LABEL = 230, GAP = 8;
    const depth = new Int8Array(TL.events.length);
    const trackDepth = new Array(TL.tracks.length).fill(1);
    let stack = [], cur = -1;
    TL.events.forEach((e, i) => {
      if (e[0] !== cur) { stack = []; cur = e[0]; }
      while (stack.length && stack[stack.length - 1] <= e[1]) stack.pop();
      const d = Math.min(stack.length, MAX_DEPTH - 1);
      depth[i] = d;
      stack.push(e[1] + e[2]);
      trackDepth[e[0]] = Math.max(trackDepth[e[0]], d + 1);
    });
    // The critical path (the replay's, gpuscope help terms) on a row of its own above the
    // tracks, each stretch also outlined on the row where it is spent.
    const CP = TL.critical_path || [], PC = TL.path_categories || [];
    const pathColor = (c) => /GPU kernels/.test(c) ? '#4e79a7' : /GPU copies/.test(c) ? '#e15759'
      : /calls|sync/.test(c) ? '#76b7b2' : /Python|op dispatch|CPU op compute|host work|data loading/.test(c) ? '#59a14f'
        : '#98a2b3';
    const trackY = [];
    let y = 4 + (CP.length ? ROW + GAP : 0);
    TL.tracks.forEach((t, i) => { trackY.push(y); y += trackDepth[i] * ROW + GAP; });
    const height = y + 18;
    const dpr = window.devicePixelRatio || 1;
    let view = { lo: 0, hi: span };
    let width = 0;
    const ctx = canvas.getContext('2d');
    const showLinks = document.getElementById('show-links');
    function resize() {
      width = canvas.parentElement.clientWidth || 1200;
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      canvas.style.height = height + 'px';
      draw();
    }
    const xOf = (t) => LABEL + (width - LABEL - 10) * (t - view.lo) / (view.hi - view.lo);
    const tOf = (x) => view.lo + (x - LABEL) * (view.hi - view.lo) / (width - LABEL - 10);
    function draw() {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = '11px system-ui, sans-serif';
      let drawn = 0;
      ctx.save();
      ctx.beginPath();
      ctx.rect(LABEL, 0, width - LABEL, height);
      ctx.clip();
      TL.events.forEach((e, i) => {
        const x0 = xOf(e[1]), x1 = xOf(e[1] + e[2]);
        if (x1 < LABEL || x0 > width) return;
        const w = Math.max(1, x1 - x0);
        const yy = trackY[e[0]] + depth[i] * ROW;
        ctx.fillStyle = CATS[e[4]].color;
        ctx.fillRect(x0, yy, w, ROW - 2);
        drawn++;
        if (w > 40) {
          ctx.fillStyle = '#fff';
          const name = TL.names[e[3]];
          const fit = Math.floor((w - 6) / 6);
          if (fit > 2) ctx.fillText(shorten(name, fit), Math.max(x0, LABEL) + 3, yy + ROW - 4);
        }
      });
      let pathDrawn = 0;
      ctx.lineWidth = 1.5;
      for (const [track, start, dur, cat] of CP) {
        const x0 = xOf(start), x1 = xOf(start + dur);
        if (x1 < LABEL || x0 > width) continue;
        ctx.fillStyle = pathColor(PC[cat]);
        ctx.fillRect(x0, 4, Math.max(1, x1 - x0), ROW - 2);
        if (track >= 0) {
          ctx.strokeStyle = '#c0392b';
          ctx.strokeRect(x0, trackY[track] - 1, Math.max(1, x1 - x0), trackDepth[track] * ROW);
        }
        pathDrawn++;
      }
      canvas.dataset.path = String(pathDrawn);
      if (showLinks.checked) {
        ctx.strokeStyle = 'rgba(29, 35, 48, 0.35)';
        ctx.lineWidth = 1;
        ctx.beginPath();
        for (const [a, b] of TL.links) {
          const ea = TL.events[a], eb = TL.events[b];
          ctx.moveTo(xOf(ea[1]), trackY[ea[0]] + depth[a] * ROW + ROW - 2);
          ctx.lineTo(xOf(eb[1]), trackY[eb[0]] + depth[b] * ROW);
        }
        ctx.stroke();
      }
      ctx.restore();
      // Track labels and separators.
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, LABEL, height);
      if (CP.length) {
        ctx.fillStyle = '#c0392b';
        ctx.fillText('critical path', 6, 14);
        ctx.fillStyle = '#dde1e7';
        ctx.fillRect(0, 4 + ROW + GAP / 2 - 1, width, 1);
      }
      TL.tracks.forEach((t, i) => {
        ctx.fillStyle = t.gpu ? '#4e79a7' : '#1d2330';
        ctx.fillText(shorten(t.process, 34), 6, trackY[i] + 10);
        ctx.fillStyle = '#667085';
        ctx.fillText(shorten(t.thread, 34), 6, trackY[i] + 22);
        ctx.fillStyle = '#dde1e7';
        ctx.fillRect(0, trackY[i] + trackDepth[i] * ROW + GAP / 2 - 1, width, 1);
      });
      // Time axis.
      ctx.fillStyle = '#667085';
      for (let k = 0; k <= 8; k++) {
        const t = view.lo + (view.hi - view.lo) * k / 8;
        const x = xOf(t);
        ctx.fillRect(x, height - 16, 1, 4);
        ctx.fillText('+' + fmtDur(Math.round(t)), Math.min(x + 2, width - 60), height - 3);
      }
      canvas.dataset.drawn = String(drawn);
    }
    function zoom(factor, atX) {
      const t = tOf(atX === undefined ? (LABEL + width) / 2 : atX);
      const lo = t - (t - view.lo) * factor, hi = t + (view.hi - t) * factor;
      view = { lo: Math.max(-span * 0.05, lo), hi: Math.min(span * 1.05, Math.max(hi, lo + 10)) };
      draw();
    }
    canvas.addEventListener('wheel', (ev) => { ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.25 : 0.8, ev.offsetX); }, { passive: false });
    let drag = null;
    canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, lo: view.lo, hi: view.hi }; canvas.style.cursor = 'grabbing'; });
    window.addEventListener('mouseup', () => { drag = null; canvas.style.cursor = 'grab'; });
    const tip = document.getElementById('tooltip');
    canvas.addEventListener('mousemove', (ev) => {
      if (drag) {
        const dt = (ev.clientX - drag.x) * (drag.hi - drag.lo) / (width - LABEL - 10);
        view = { lo: drag.lo - dt, hi: drag.hi - dt };
        draw();
        return;
      }
      const t = tOf(ev.offsetX);
      let hit = -1;
      TL.events.forEach((e, i) => {
        const yy = TL.tracks.length ? trackY[e[0]] + depth[i] * ROW : 0;
        if (ev.offsetY >= yy && ev.offsetY < yy + ROW && t >= e[1] && t <= e[1] + Math.max(e[2], (view.hi - view.lo) / width)) hit = i;
      });
      if (hit < 0 || ev.offsetX < LABEL) { tip.hidden = true; return; }
      const e = TL.events[hit];
      tip.textContent = TL.names[e[3]] + '\n' + CATS[e[4]].name + ', ' + fmtDur(e[2]) + ' at +' + fmtDur(e[1]);
      tip.style.whiteSpace = 'pre-wrap';
      tip.style.left = Math.min(ev.offsetX + 12, width - 380) + 'px';
      tip.style.top = (ev.offsetY + 14) + 'px';
      tip.hidden = false;
    });
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
    canvas.addEventListener('dblclick', () => { view = { lo: 0, hi: span }; draw(); });
    document.getElementById('zoom-in').addEventListener('click', () => zoom(0.5));
    document.getElementById('zoom-out').addEventListener('click', () => zoom(2));
    document.getElementById('zoom-reset').addEventListener('click', () => { view = { lo: 0, hi: span }; draw(); });
    showLinks.addEventListener('change', draw);
    window.addEventListener('resize', resize);
    resize();
  });

  // ---- GPU memory: allocated bytes over the trace per device (reserved dashed), peak marked ----
  section('memory', () => {
    const svg = document.getElementById('memory-chart');
    const devs = (data.memory && data.memory.devices) || [];
    if (!devs.length) {
      svg.replaceWith(el('div', { class: 'empty', id: 'memory-chart' },
        'No GPU memory events: record them with torch.profiler.profile(profile_memory=True).'));
      return;
    }
    const W = 1200, H = 220, L = 80, B = 28, T = 10, R = 10;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.style.height = H + 'px';
    let span = 1, max = 1, points = 0;
    for (const d of devs) {
      for (const p of d.points) { span = Math.max(span, p[0]); max = Math.max(max, p[1], p[2]); }
    }
    const x = (ns) => L + (W - L - R) * ns / span;
    const y = (b) => T + (H - T - B) * (1 - b / max);
    for (let k = 0; k <= 4; k++) {
      const v = max * k / 4;
      svg.append(svgEl('line', { class: 'axis', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      svg.append(svgEl('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtBytes(Math.round(v))));
    }
    for (let k = 0; k <= 4; k++) {
      svg.append(svgEl('text', { x: x(span * k / 4), y: H - 8, 'text-anchor': 'middle' }, '+' + fmtDur(Math.round(span * k / 4))));
    }
    const colours = ['#2c5282', '#c05621', '#2f855a', '#6b46c1'];
    devs.forEach((d, i) => {
      const colour = colours[i % colours.length];
      // A step line: the allocation holds until the next event.
      let path = '', reserved = '';
      d.points.forEach((p, k) => {
        path += (k ? ' H' + x(p[0]).toFixed(1) + ' V' : 'M' + x(p[0]).toFixed(1) + ' ') + y(p[1]).toFixed(1);
        if (p[2] >= 0) reserved += (reserved ? ' L' : 'M') + x(p[0]).toFixed(1) + ' ' + y(p[2]).toFixed(1);
      });
      const line = svgEl('path', { class: 'memory-line', d: path, fill: 'none', stroke: colour, 'stroke-width': 1.5 });
      line.append(svgEl('title', {}, 'GPU ' + d.device + ': allocated (peak ' + fmtBytes(d.peak_allocated_bytes) + ')'));
      svg.append(line);
      if (reserved) {
        svg.append(svgEl('path', { d: reserved, fill: 'none', stroke: colour, 'stroke-dasharray': '4 3', 'stroke-width': 1 }));
      }
      svg.append(svgEl('circle', { cx: x(d.peak_at_ns), cy: y(d.peak_allocated_bytes), r: 4, fill: '#c0392b' }));
      points += d.points.length;
    });
    svg.dataset.points = String(points);
    document.getElementById('memory-note').textContent = devs.map((d) => 'GPU ' + d.device + ' peak ' +
      fmtBytes(d.peak_allocated_bytes) + (d.totals_recorded ? '' : ' (from the trace start)')).join(', ') +
      '; dashed: reserved by the caching allocator; gpuscope memory TRACE names who held the peak';
  });

  document.body.dataset.ready = '1';
})();
