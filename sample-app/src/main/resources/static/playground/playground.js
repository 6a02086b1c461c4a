// The playground page: applies a rule through POST /playground/rule, sends requests to its demo endpoint and draws
// each verdict. Plain browser JavaScript, no library, nothing loaded from another site.
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const BUCKETS = ['gcra', 'token-bucket', 'leaky-bucket'];
  const SVG = 'http://www.w3.org/2000/svg';
  let responses = [];
  let firstAt = null;
  let periodMillis = 10000;

  function algorithm() {
    return $('algorithm').value;
  }

  function demoPath() {
    return '/playground/demo/' + algorithm();
  }

  function parsePeriodMillis(text) {
    const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
    if (!match) {
      return 10000;
    }
    const factor = { ms: 1, s: 1000, m: 60000, h: 3600000 }[match[2]];
    return Number(match[1]) * factor;
  }

  function syncForm() {
    const bucket = BUCKETS.includes(algorithm());
    $('burst').disabled = !bucket;
    if (!bucket) {
      $('burst').value = '';
    }
    $('endpoint').textContent = demoPath();
  }

  async function applyRule(event) {
    event.preventDefault();
    const body = {
      algorithm: algorithm(),
      limit: Number($('limit').value),
      period: $('period').value.trim(),
      burst: $('burst').value ? Number($('burst').value) : null
    };
    const status = $('rule-status');
    status.className = '';
    status.textContent = 'applying...';
    const response = await fetch('/playground/rule', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body)
    });
    const json = await response.json();
    if (!response.ok) {
      status.className = 'error';
      status.textContent = json.detail || ('HTTP ' + response.status);
      return;
    }
    periodMillis = parsePeriodMillis(body.period);
    clearTimeline();
    status.textContent = 'rule ' + json.name + ': ' + json.algorithm + ' ' + json.limit + ' per ' + body.period
      + (BUCKETS.includes(json.algorithm) ? ', burst ' + json.burst : '') + ' (your quota is full again)';
    status.dataset.applied = json.name;
  }

  async function sendOne() {
    const sentAt = performance.now();
    if (firstAt === null) {
      firstAt = sentAt;
    }
    const response = await fetch(demoPath(), { cache: 'no-store' });
    await response.text();
    const entry = {
      at: Math.round(sentAt - firstAt),
      status: response.status,
      rateLimit: response.headers.get('RateLimit') || '',
      policy: response.headers.get('RateLimit-Policy') || '',
      retryAfter: response.headers.get('Retry-After') || ''
    };
    entry.remaining = headerNumber(entry.rateLimit, 'r');
    entry.quota = headerNumber(entry.policy, 'q');
    responses.push(entry);
    render(entry);
  }

  // a parameter of the first item of a structured header, e.g. r of "try-gcra";r=4;t=2 (null when absent)
  function headerNumber(header, name) {
    const match = new RegExp(';' + name + '=(\\d+)').exec(header);
    return match ? Number(match[1]) : null;
  }

  async function sendBurst() {
    const count = Math.max(1, Math.min(100, Number($('count').value) || 1));
    for (let i = 0; i < count; i++) {
      await sendOne();
    }
  }

  function clearTimeline() {
    responses = [];
    firstAt = null;
    $('responses').tBodies[0].replaceChildren();
    $('admitted').textContent = '0';
    $('denied').textContent = '0';
    $('last-headers').textContent = '';
    drawTimeline();
  }

  function render(entry) {
    const admitted = entry.status < 400;
    const row = document.createElement('tr');
    row.className = admitted ? 'admitted' : 'denied';
    row.dataset.status = String(entry.status);
    [String(responses.length), entry.at + ' ms', String(entry.status), entry.rateLimit, entry.policy, entry.retryAfter]
      .forEach((text, i) => {
        const cell = document.createElement('td');
        cell.textContent = text;
        cell.className = ['index', 'at', 'status', 'headers ratelimit', 'headers policy', 'retry-after'][i];
        row.appendChild(cell);
      });
    $('responses').tBodies[0].appendChild(row);
    $('admitted').textContent = String(responses.filter((r) => r.status < 400).length);
    $('denied').textContent = String(responses.filter((r) => r.status >= 400).length);
    $('last-headers').textContent = 'RateLimit: ' + entry.rateLimit
      + (entry.retryAfter ? '   Retry-After: ' + entry.retryAfter : '');
    drawTimeline();
  }

  function drawTimeline() {
    const svg = $('timeline');
    svg.replaceChildren();
    const width = 800;
    const left = 40;
    const right = 30;
    const middle = 60;
    const last = responses.length ? responses[responses.length - 1].at : 0;
    const span = Math.max(periodMillis, last * 1.1, 1000);
    const x = (at) => left + (width - left - right) * at / span;
    line(svg, left, middle, width - right, middle, '#d0d7de');
    label(svg, 4, 30, 'admitted', '#1a7f37');
    label(svg, 4, 100, 'denied', '#cf222e');
    for (let tick = 0; tick <= span; tick += tickStep(span)) {
      line(svg, x(tick), middle - 3, x(tick), middle + 3, '#57606a');
      label(svg, x(tick) - 8, 116, (tick / 1000).toFixed(tick % 1000 ? 1 : 0) + ' s', '#57606a');
    }
    // requests closer than a mark's width are stacked, so that each stays visible
    const stacks = {};
    responses.forEach((r) => {
      const admitted = r.status < 400;
      const key = Math.round(x(r.at) / 8) + (admitted ? 'a' : 'd');
      const level = stacks[key] = (stacks[key] || 0) + 1;
      const mark = document.createElementNS(SVG, 'circle');
      mark.setAttribute('cx', String(x(r.at)));
      mark.setAttribute('cy', String(admitted ? middle - 8 * level : middle + 8 * level));
      mark.setAttribute('r', '3.5');
      mark.setAttribute('fill', admitted ? '#2da44e' : '#cf222e');
      mark.setAttribute('class', admitted ? 'mark admitted' : 'mark denied');
      const title = document.createElementNS(SVG, 'title');
      title.textContent = r.status + ' at ' + r.at + ' ms, RateLimit: ' + r.rateLimit;
      mark.appendChild(title);
      svg.appendChild(mark);
    });
    drawRemaining(svg, x, width - right);
  }

  // the remaining quota after each response (the RateLimit header's r), as a bar per response under the verdicts,
  // on the same time axis; bars of requests closer than a bar's width are put side by side, in order
  function drawRemaining(svg, x, end) {
    const top = 146;
    const bottom = 204;
    const left = x(0);
    line(svg, left, bottom, end, bottom, '#d0d7de');
    label(svg, 4, 134, 'remaining', '#0969da');
    const quota = Math.max(1, ...responses.map((r) => r.quota || 0), ...responses.map((r) => r.remaining || 0));
    if (responses.length) {
      line(svg, left, top, end, top, '#eaeef2');
      label(svg, end + 4, top + 4, String(quota), '#57606a');
      label(svg, end + 4, bottom + 4, '0', '#57606a');
    }
    let previous = -Infinity;
    let path = '';
    responses.forEach((r) => {
      if (r.remaining === null) {
        return;
      }
      const at = Math.max(x(r.at), previous + 10);
      previous = at;
      const y = bottom - (bottom - top) * r.remaining / quota;
      path += (path ? ' L' : 'M') + (at + 3.5) + ' ' + y;
      const admitted = r.status < 400;
      const bar = document.createElementNS(SVG, 'rect');
      bar.setAttribute('x', String(at));
      bar.setAttribute('y', String(Math.min(y, bottom - 2)));
      bar.setAttribute('width', '7');
      bar.setAttribute('height', String(Math.max(bottom - y, 2)));
      bar.setAttribute('fill', admitted ? '#54aeff' : '#cf222e');
      bar.setAttribute('class', admitted ? 'remaining admitted' : 'remaining denied');
      bar.dataset.remaining = String(r.remaining);
      const title = document.createElementNS(SVG, 'title');
      title.textContent = r.remaining + ' remaining after the ' + r.status + ' at ' + r.at + ' ms';
      bar.appendChild(title);
      svg.appendChild(bar);
      label(svg, at, Math.min(y, bottom - 2) - 3, String(r.remaining), admitted ? '#0969da' : '#cf222e')
        .setAttribute('class', 'remaining-label');
    });
    if (path) {
      const step = document.createElementNS(SVG, 'path');
      step.setAttribute('d', path);
      step.setAttribute('fill', 'none');
      step.setAttribute('stroke', '#0969da');
      step.setAttribute('stroke-width', '1');
      step.setAttribute('class', 'remaining-line');
      svg.insertBefore(step, svg.firstChild);
    }
  }

  function tickStep(span) {
    return [500, 1000, 2000, 5000, 10000, 30000, 60000, 300000].find((step) => span / step <= 10) || 600000;
  }

  function line(svg, x1, y1, x2, y2, stroke) {
    const element = document.createElementNS(SVG, 'line');
    [['x1', x1], ['y1', y1], ['x2', x2], ['y2', y2], ['stroke', stroke]]
      .forEach(([name, value]) => element.setAttribute(name, String(value)));
    svg.appendChild(element);
  }

  function label(svg, x, y, text, fill) {
    const element = document.createElementNS(SVG, 'text');
    element.setAttribute('x', String(x));
    element.setAttribute('y', String(y));
    element.setAttribute('fill', fill);
    element.setAttribute('font-size', '11');
    element.textContent = text;
    svg.appendChild(element);
    return element;
  }

  $('algorithm').addEventListener('change', syncForm);
  $('rule-form').addEventListener('submit', applyRule);
  $('send-one').addEventListener('click', sendOne);
  $('send-burst').addEventListener('click', sendBurst);
  $('clear').addEventListener('click', clearTimeline);
  syncForm();
  drawTimeline();
}());
