// gpuscope HTML report: draws the embedded JSON (script#gpuscope-data) with the kit of
// report_kit.js (placed before it in the page); the charts are report_charts.js. No libraries,
// no network.
(function () {
  const { fmtDur, fmtBytes, fmtCount, shorten, el, svgEl, barTable, section, data } =
    gpuscopeKit;
  const A = data.analysis, S = A.summary;

  // ---- header and cards ----
  section('header', () => {
    const t = data.trace;
    const devices = new Map();
    for (const d of t.devices) devices.set(d, (devices.get(d) || 0) + 1);
    const gpus = [...devices].map(([d, n]) => (n > 1 ? n + ' \u00d7 ' : '') + d).join(', ');
    document.getElementById('source').textContent =
      t.path + ' \u2014 ' + t.format + (t.format_version ? ' (' + t.format_version + ')' : '') + (gpus ? ' \u2014 ' + gpus : '');
    document.getElementById('generator').textContent = data.generator;
  });
  section('cards', () => {
    const cards = document.getElementById('cards');
    function card(id, label, value, sub) {
      const c = el('div', { class: 'card', id: 'card-' + id });
      c.append(el('div', { class: 'label' }, label), el('div', { class: value.length > 16 ? 'value long' : 'value' }, value),
        el('div', { class: 'sub' }, sub));
      cards.append(c);
    }
    card('wall', 'Wall time', fmtDur(S.wall_ns), 'trace span; steady window ' + fmtDur(S.window_ns));
    const total = S.iterations_total;
    card('iterations', 'Steps', total ? fmtCount(S.iterations) : 'none found',
      total ? fmtCount(S.warmup_iterations) + ' warm-up of ' + fmtCount(total) + ' (' + S.iteration_source + ')' : S.iteration_source);
    card('latency', 'Per-step latency', total ? fmtDur(S.iteration_median_ns) : 'n/a',
      total ? 'median; mean ' + fmtDur(S.iteration_mean_ns) + ', p95 ' + fmtDur(S.iteration_p95_ns) : 'no repeating iterations');
    card('busy', 'GPU busy', S.gpu_busy_pct === null ? 'no GPU work' : S.gpu_busy_pct.toFixed(1) + '%',
      S.devices + ' GPU' + (S.devices === 1 ? '' : 's') + ' in the steady window');
    card('verdict', 'Verdict', S.verdict, 'kernels ' + fmtDur(S.kernel_ns) + ', copies ' + fmtDur(S.memcpy_ns) +
      ', API ' + fmtDur(S.api_ns));
    // Serving traces: one card per phase, the layer structure, the graph attribution.
    (A.phases || []).forEach((p) => card('phase-' + p.name, p.name + ' steps', fmtDur(p.latency_ns.median),
      'median of ' + fmtCount(p.steps) + ' step' + (p.steps === 1 ? '' : 's') +
      (p.tokens_per_step === null ? '' : ', ' + fmtCount(p.tokens_per_step) + ' tokens/step') +
      (p.gpu_busy_pct === null ? '' : ', GPU busy ' + p.gpu_busy_pct.toFixed(1) + '%')));
    const stages = S.stages || [];
    const repeated = stages.some((x) => x.kind !== 'once');
    if (!repeated && S.structure) card('structure', 'Structure', S.structure.text, 'a kernel block repeating inside a step (layers)');
    if (S.graphs && S.graphs.kernels) card('graphs', 'Graph kernels', fmtCount(S.graphs.matched) + ' / ' + fmtCount(S.graphs.kernels),
      'attributed through ' + fmtCount(S.graphs.captures) + ' captured graph' + (S.graphs.captures === 1 ? '' : 's'));
  });

  // ---- stages: what runs once and what repeats (steps, passes, layers) ----
  section('stages', () => {
    const stages = S.stages || [];
    if (!stages.some((x) => x.kind !== 'once')) return;
    document.getElementById('stages-section').hidden = false;
    const total = stages.reduce((a, x) => a + x.window_ns, 0) || 1;
    const what = (x) => x.kind === 'once' ? 'runs once' : x.kind === 'steps' ? 'steps, each after ' + x.separator
      : x.kind === 'passes' ? 'passes, each holding layers'
      : x.kind === 'updates' ? "per-parameter optimizer updates"
      : x.separator ? 'layers, each after ' + x.separator : 'layers (a block in a row)';
    document.getElementById('stages').append(barTable('stages-table',
      ['Stage', 'Kernels', 'Repeats', 'Each', 'Time', 'Share', 'What it is'], stages, (x) => [
        el('td', {}, x.label), el('td', {}, fmtCount(x.kernels)), el('td', {}, fmtCount(x.repeats)),
        el('td', {}, fmtDur(x.window_ns / Math.max(1, x.repeats))), el('td', {}, fmtDur(x.window_ns)),
        el('td', {}, (100 * x.window_ns / total).toFixed(1) + '%'), el('td', {}, what(x)),
      ], (x) => x.window_ns, 240));
  });

  // ---- GPU idle by cause ----
  section('idle', () => {
    const box = document.getElementById('idle');
    const idle = S.idle_by_cause || [];
    if (S.gpu_busy_pct === null || !idle.length) {
      box.append(el('div', { class: 'empty' }, S.gpu_busy_pct === null ? 'No GPU work in this trace.' : 'The GPUs were never idle.'));
      return;
    }
    // Largest first: the first 8 causes, bars scaled to the largest.
    box.append(barTable('idle-table', ['Cause', 'Idle time', 'Gaps', '% of window'], idle.slice(0, 8), (c) => [
      el('td', { class: 'mono' }, shorten(c.cause, 120)), el('td', {}, fmtDur(c.ns)), el('td', {}, fmtCount(c.gaps)),
      el('td', {}, S.window_ns ? (100 * c.ns / S.window_ns).toFixed(1) + '%' : 'n/a'),
    ], (c) => c.ns, 240));
    // The largest stalls of the whole trace, in or out of the window.
    const stalls = A.stalls || [];
    if (stalls.length) {
      box.append(el('h3', {}, 'Largest GPU stalls (whole trace)'));
      const ul = el('ul', { id: 'stalls' });
      for (const s of stalls) {
        const where = [s.where.python, s.where.op].filter((x) => x).join('  \u203a  ');
        ul.append(el('li', {}, fmtDur(s.dur_ns) + ' on GPU ' + s.device + (s.in_window ? '' : ' (outside the window)') +
          ': ' + s.host + (where ? ' [' + where + ']' : '')));
      }
      box.append(ul);
    }
  });

  // ---- GPU time by kernel category ----
  section('categories', () => {
    const box = document.getElementById('categories');
    const cats = (S.categories || []).filter((c) => c.total_ns > 0);
    if (!cats.length) {
      box.append(el('div', { class: 'empty' }, 'No GPU work in the steady window.'));
      return;
    }
    box.append(barTable('categories-table', ['Category', 'GPU time', 'Calls', '% of GPU time'], cats, (c) => [
      el('td', { class: 'mono' }, c.category), el('td', {}, fmtDur(c.total_ns)), el('td', {}, fmtCount(c.calls)),
      el('td', {}, c.percent.toFixed(1) + '%'),
    ], (c) => c.total_ns, 240));
  });

  // ---- findings (of the trace, or of a job) ----
  // `shown`: each finding's where and evidence with long names shortened (base/short_name.h).
  function renderFindings(list, findings, shown) {
    if (!findings.length) {
      list.append(el('div', { class: 'empty' }, 'No rule fired above its threshold.'));
      return;
    }
    findings.forEach((f, i) => {
      // The first findings and every high/medium one open; the rest one line each, click to open.
      const box = el('details', { class: 'finding ' + f.severity, 'data-rule': f.rule });
      box.open = i < 5 || f.severity === 'high' || f.severity === 'medium';
      const head = el('summary', { class: 'head' });
      head.append(el('span', { class: 'rank' }, (i + 1) + '.'), el('span', { class: 'badge ' + f.severity }, f.severity),
        el('span', { class: 'title' }, f.title), el('span', { class: 'rule' }, f.rule));
      // Ranked by what the fix alone saves; what it adds after the fixes priced before it beside.
      if (f.severity !== 'info' && f.standalone_ns > 0) {
        let saves = 'saves ' + fmtDur(f.standalone_ns) + ' (' + f.standalone_percent.toFixed(1) + '%)';
        if (f.impact_ns < f.standalone_ns && f.priced_after.length) {
          saves += ' alone; ' + (f.impact_ns ? fmtDur(f.impact_ns) : '0') + ' after ' + f.priced_after.join(', ');
        }
        head.append(el('span', { class: 'impact' }, saves));
      }
      box.append(head);
      const dl = el('dl');
      const full = [f.where.python, f.where.op, f.where.kernel].filter((x) => x).join('  \u203a  ');
      const sh = shown && shown[i];
      const where = (sh ? sh.where : full) + (f.where.graph ? '  [' + f.where.graph + ']' : '');
      dl.append(el('dt', {}, 'where'), el('dd', { class: 'mono', title: full }, where || 'not attributed'));
      if (f.detail) dl.append(el('dt', {}, 'measured'), el('dd', {}, f.detail));
      if (f.evidence.length) {
        const ul = el('ul');
        f.evidence.forEach((e, k) => {
          const when = e.dur_ns || e.start_ns ? (e.iteration >= 0 ? 'iteration ' + e.iteration + ', ' : '') + fmtDur(e.dur_ns) + ': ' : '';
          const what = sh ? sh.evidence[k] : shorten(e.what, 200);
          ul.append(el('li', { class: 'mono', title: e.what }, when + what));
        });
        const dd = el('dd');
        dd.append(ul);
        dl.append(el('dt', {}, 'evidence'), dd);
      }
      dl.append(el('dt', {}, 'fix'), el('dd', { class: 'advice' }, f.advice));
      box.append(dl);
      list.append(box);
    });
  }
  section('findings', () => renderFindings(document.getElementById('findings-list'), A.findings, data.findings_shown));

  // ---- ranks of a distributed job: each rank's GPU time, its clock, the collectives ----
  section('ranks', () => {
    const J = data.job;
    if (!J) return;
    document.getElementById('ranks-section').hidden = false;
    const st = J.straggler;
    document.getElementById('ranks-note').textContent = fmtCount(J.job.ranks) + ' ranks' +
      (J.job.world_size > 0 ? ' of ' + fmtCount(J.job.world_size) : '') + ', clocks aligned to rank ' + J.job.reference_rank +
      '; the sections below detail rank ' + data.detailed_rank + (st && st.rank === data.detailed_rank ? ' (the straggler)' : '');
    const sum = document.getElementById('ranks-summary');
    const coll = J.job.wait_ns + J.job.transfer_ns;
    const lines = [fmtCount(J.job.instances) + ' collective instances matched by ' + J.job.matched_by + '; in them, ranks waited ' +
      fmtDur(J.job.wait_ns) + ' for the last rank and transferred ' + fmtDur(J.job.transfer_ns) +
      (coll ? ' (' + (100 * J.job.wait_ns / coll).toFixed(1) + '% waiting)' : '') + '.'];
    if (st) {
      lines.push('Straggler: rank ' + st.rank + ', last at ' + fmtCount(st.late) + ' of ' + fmtCount(st.instances) +
        ' collectives, holding the others back ' + fmtDur(st.cost_ns) + (st.causes.length ? '; instead: ' +
        st.causes.map((c) => (c.kind === 'kernel' ? 'kernel ' : 'host op ') + shorten(c.what, 80) + ' +' + fmtDur(c.excess_ns)).join(', ') : '') + '.');
    }
    for (const n of J.job.notes) lines.push('Note: ' + n);
    for (const l of lines) sum.append(el('p', {}, l));
    // One bar per rank over its GPU span: compute, waiting, exposed transfer, idle.
    const svg = document.getElementById('ranks-chart');
    const R = J.ranks;
    const W = 820, rowH = R.length > 32 ? 8 : 20, labelW = 70, top = 8;
    const H = top * 2 + R.length * rowH;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.style.height = H + 'px';
    const spans = R.map((r) => r.busy_ns + r.idle_ns);
    const max = Math.max(...spans, 1);
    R.forEach((r, i) => {
      const y = top + i * rowH;
      const wait = Math.min(r.wait_ns, r.comm_exposed_ns);
      const segs = [['compute', r.busy_ns - r.comm_exposed_ns], ['wait', wait], ['transfer', r.comm_exposed_ns - wait], ['idle', r.idle_ns]];
      const g = svgEl('g', { 'data-rank': r.rank });
      g.append(svgEl('title', {}, 'rank ' + r.rank + (r.offset_ns === null ? ' (clock not aligned)' : ', clock offset ' + (r.offset_ns < 0 ? '-' : '+') + fmtDur(Math.abs(r.offset_ns))) +
        '\n' + segs.map(([k, v]) => k + ' ' + fmtDur(v)).join(', ') + '\nlast to arrive ' + fmtCount(r.last_arrivals) + ' times, late cost ' + fmtDur(r.late_cost_ns)));
      if (rowH >= 12 || i % 8 === 0) g.append(svgEl('text', { x: labelW - 6, y: y + rowH - 6, 'text-anchor': 'end' }, 'rank ' + r.rank));
      let x = labelW;
      for (const [k, v] of segs) {
        const w = Math.max(0, (W - labelW - 10) * v / max);
        g.append(svgEl('rect', { class: 'seg-' + k, x: x, y: y + 2, width: w, height: rowH - 4 }));
        x += w;
      }
      svg.append(g);
    });
    const legend = document.getElementById('ranks-legend');
    for (const [k, label] of [['compute', 'compute (and communication behind it)'], ['wait', 'waiting for the last rank'],
      ['transfer', 'exposed transfer'], ['idle', 'idle']]) {
      const i = el('i', { class: 'seg-' + k });
      i.style.background = getComputedStyle(document.documentElement).getPropertyValue(k === 'compute' ? '--accent' : k === 'wait' ? '--medium' : '--line');
      if (k === 'transfer') i.style.background = '#8e44ad';
      const span = el('span');
      span.append(i, label);
      legend.append(span);
    }
    const tables = document.getElementById('ranks-tables');
    tables.append(barTable('ranks-table', ['Rank', 'Clock offset', 'Steps', 'Step median', 'Waiting', 'Transfer', 'Last', 'Late cost'], R, (r) => [
      el('td', {}, String(r.rank)), el('td', {}, r.offset_ns === null ? 'not aligned' : (r.offset_ns < 0 ? '\u2212' : '+') + fmtDur(Math.abs(r.offset_ns))), el('td', {}, fmtCount(r.steps)),
      el('td', {}, r.step_median_ns === null ? 'n/a' : fmtDur(r.step_median_ns)), el('td', {}, fmtDur(r.wait_ns)), el('td', {}, fmtDur(r.transfer_ns)),
      el('td', {}, fmtCount(r.last_arrivals)), el('td', {}, fmtDur(r.late_cost_ns)),
    ], (r) => r.late_cost_ns, 120));
    if (J.collectives.length) {
      tables.append(barTable('collectives-table', ['Collective', 'Group', 'Dtype', 'Size', 'Ranks', 'Count', 'Time', 'Waiting', 'Transfer', 'busbw GB/s'],
        J.collectives.slice(0, 25), (c) => [el('td', {}, c.name), el('td', {}, c.group || '\u2013'), el('td', {}, c.dtype || '\u2013'),
          el('td', {}, fmtBytes(c.bytes)), el('td', {}, fmtCount(c.ranks)), el('td', {}, fmtCount(c.count)), el('td', {}, fmtDur(c.time_ns)),
          el('td', {}, fmtDur(c.wait_ns)), el('td', {}, fmtDur(c.transfer_ns)), el('td', {}, c.busbw_gbps === null ? 'n/a' : c.busbw_gbps.toFixed(1))],
        (c) => c.time_ns, 120));
    }
    renderFindings(document.getElementById('job-findings'), J.findings);
  });

  // ---- top kernels (horizontal bars) ----
  section('kernels', () => {
    const svg = document.getElementById('kernels-chart');
    const K = data.kernels;
    const rows = K.top.slice();
    if (K.other_calls) rows.push({ name: '(' + fmtCount(K.distinct - K.top.length) + ' other kernels)', calls: K.other_calls, total_ns: K.other_ns, percent: K.total_ns ? 100 * K.other_ns / K.total_ns : 0, other: true });
    if (!rows.length) {
      svg.replaceWith(el('div', { class: 'empty', id: 'kernels-chart' }, 'No GPU kernels in this trace.'));
      return;
    }
    const W = 820, rowH = 22, labelW = 360, top = 8, valueW = 150;
    const H = top * 2 + rows.length * rowH;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.style.height = H + 'px';
    const max = Math.max(...rows.map((r) => r.total_ns), 1);
    rows.forEach((r, i) => {
      const y = top + i * rowH;
      const w = Math.max(1, (W - labelW - valueW - 10) * r.total_ns / max);
      const g = svgEl('g');
      g.append(svgEl('title', {}, r.name + '\n' + fmtCount(r.calls) + ' calls, ' + fmtDur(r.total_ns) + ' total'));
      g.append(svgEl('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end' }, r.shown || shorten(r.name, 58)));
      g.append(svgEl('rect', { class: 'bar' + (r.other ? ' warmup' : ''), x: labelW, y: y + 3, width: w, height: rowH - 6, rx: 2 }));
      g.append(svgEl('text', { x: labelW + w + 6, y: y + 15 }, fmtDur(r.total_ns) + '  ' + r.percent.toFixed(1) + '%  \u00d7' + fmtCount(r.calls)));
      svg.append(g);
    });
  });

  // ---- copies by kind ----
  section('copies', () => {
    const box = document.getElementById('copies');
    if (!data.copies.length) {
      box.append(el('div', { class: 'empty' }, 'No memory copies or memsets in this trace.'));
      return;
    }
    box.append(barTable('copies-table', ['Kind', 'Calls', 'Bytes', 'Time', 'Host memory'], data.copies, (c) => {
      const host = [];
      if (c.pageable) host.push(fmtCount(c.pageable) + ' pageable');
      if (c.pinned) host.push(fmtCount(c.pinned) + ' pinned');
      if (c.host_unknown) host.push(fmtCount(c.host_unknown) + ' not recorded');
      return [el('td', {}, c.kind), el('td', {}, fmtCount(c.calls)), el('td', {}, fmtBytes(c.bytes)),
        el('td', {}, fmtDur(c.total_ns)), el('td', {}, host.join(', ') || '\u2013')];
    }, (c) => c.total_ns, 100));
  });
})();
