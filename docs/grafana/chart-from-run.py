#!/usr/bin/env python3
"""Scrape a running application's /actuator/prometheus and draw the rate limiter's decisions as an SVG.

A stand-in for a Grafana screenshot, made from a real run: every --interval seconds for --seconds it reads
ratelimit_requests_total and ratelimit_store_state, then writes an SVG with

  * the per-second rate of ratelimit_requests_total by outcome (summed over rules), computed like PromQL's rate() from
    consecutive scrapes (a counter that first appears counts from 0: Micrometer creates it at its first increment;
    a counter that goes down is treated as reset);
  * which store decided (ratelimit_store_state == 1) at each scrape;
  * the events written by load.sh (one "<epoch seconds> <label>" per line), as markers.

Python 3 standard library only. See docs/operations.md for the commands that produced docs/grafana/sample-run.svg.

  python3 docs/grafana/chart-from-run.py --url http://localhost:8089 --seconds 72 --interval 2 \
      --events docs/grafana/sample-run-events.txt --csv docs/grafana/sample-run.csv --out docs/grafana/sample-run.svg

--from-csv draws a recorded run again (e.g. after changing the drawing) without scraping.
"""

import argparse
import datetime
import html
import math
import re
import sys
import time
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

OUTCOMES = ["allowed", "denied", "shadow_denied", "fallback_allowed", "fallback_denied", "store_error"]
COLORS = {
    "allowed": "#2e7d32",
    "denied": "#c62828",
    "shadow_denied": "#ef8f00",
    "fallback_allowed": "#1565c0",
    "fallback_denied": "#6a1b9a",
    "store_error": "#424242",
}
STATE_COLORS = {"redis": "#a5d6a7", "fallback": "#ffab91", "local": "#b0bec5", None: "#eeeeee"}


def scrape(url):
    """Returns ({outcome: total over rules}, current store state or None) from one Prometheus text scrape."""
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode("utf-8")
    totals, state = {}, None
    for line in text.splitlines():
        if not line.startswith("ratelimit_"):
            continue
        match = SAMPLE.match(line)
        if not match:
            continue
        name, labels, value = match.group(1), dict(LABEL.findall(match.group(2) or "")), float(match.group(3))
        if name == "ratelimit_requests_total":
            outcome = labels.get("outcome", "?")
            totals[outcome] = totals.get(outcome, 0.0) + value
        elif name == "ratelimit_store_state" and value == 1.0:
            state = labels.get("state")
    return totals, state


def rates(samples):
    """Per-second rates between consecutive scrapes: [(t_mid, {outcome: rate})]."""
    result = []
    for (t0, c0, _), (t1, c1, _) in zip(samples, samples[1:]):
        dt = t1 - t0
        if dt <= 0:
            continue
        per = {}
        for outcome in set(c0) | set(c1):
            before, after = c0.get(outcome, 0.0), c1.get(outcome, 0.0)
            increase = after - before if after >= before else after
            per[outcome] = increase / dt
        result.append(((t0 + t1) / 2, per))
    return result


def nice_ceiling(value):
    if value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        candidate = step * 10 ** exponent
        if candidate >= value:
            return candidate
    return 10 ** (exponent + 1)


def render(samples, events, url, interval):
    width, height = 960, 520
    left, right, top = 70, 200, 84
    plot_w = width - left - right
    plot_h = 300
    band_top, band_h = top + plot_h + 55, 26
    t_start = samples[0][0]
    t_end = samples[-1][0]
    span = max(1.0, t_end - t_start)
    series = rates(samples)
    present = [o for o in OUTCOMES if any(r.get(o, 0) > 0 for _, r in series)]
    present += sorted({o for _, r in series for o in r if o not in OUTCOMES and r[o] > 0})
    y_max = nice_ceiling(max([r.get(o, 0.0) for _, r in series for o in present] + [0.1]))

    def x(t):
        return left + (t - t_start) / span * plot_w

    def y(v):
        return top + plot_h - v / y_max * plot_h

    out = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">')
    add(f'<rect width="{width}" height="{height}" fill="#ffffff"/>')
    started = datetime.datetime.fromtimestamp(t_start, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    add(f'<text x="{left}" y="28" font-size="16" font-weight="bold">Rate limit decisions per second by outcome</text>')
    add(f'<text x="{left}" y="46" fill="#555">ratelimit_requests_total summed over rules: increase between '
        'consecutive scrapes / seconds between them</text>')
    add(f'<text x="{left}" y="62" fill="#555">{html.escape(url)}/actuator/prometheus every {interval:g} s, '
        f'{len(samples)} scrapes, run started {started}</text>')

    # grid and y axis
    for i in range(6):
        value = y_max * i / 5
        yy = y(value)
        add(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + plot_w}" y2="{yy:.1f}" stroke="#e0e0e0"/>')
        add(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end" fill="#555">{value:g}</text>')
    add(f'<text x="18" y="{top + plot_h / 2:.0f}" transform="rotate(-90 18 {top + plot_h / 2:.0f})" '
        'text-anchor="middle" fill="#555">checks / s</text>')
    # x axis: seconds since the first scrape
    step = 10 if span > 40 else 5
    tick = 0
    while tick <= span + 0.01:
        xx = x(t_start + tick)
        add(f'<line x1="{xx:.1f}" y1="{top + plot_h}" x2="{xx:.1f}" y2="{top + plot_h + 5}" stroke="#555"/>')
        add(f'<text x="{xx:.1f}" y="{top + plot_h + 18}" text-anchor="middle" fill="#555">{tick}s</text>')
        tick += step
    add(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#9e9e9e"/>')

    # events
    for index, (when, label) in enumerate(events):
        if t_start <= when <= t_end:
            xx = x(when)
            add(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{band_top + band_h}" stroke="#757575" '
                'stroke-dasharray="4 3"/>')
            near_end = xx > left + plot_w * 0.75
            anchor, dx = ("end", -3) if near_end else ("start", 3)
            add(f'<text x="{xx + dx:.1f}" y="{top + 12 + 13 * (index % 3)}" text-anchor="{anchor}" fill="#424242" '
                f'font-size="11">{html.escape(label)}</text>')

    # one line per outcome
    for outcome in present:
        points = " ".join(f"{x(t):.1f},{y(r.get(outcome, 0.0)):.1f}" for t, r in series)
        color = COLORS.get(outcome, "#000000")
        add(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2" stroke-linejoin="round"/>')
    # legend
    for index, outcome in enumerate(present):
        ly = top + 10 + index * 20
        color = COLORS.get(outcome, "#000000")
        add(f'<line x1="{left + plot_w + 15}" y1="{ly}" x2="{left + plot_w + 40}" y2="{ly}" stroke="{color}" '
            'stroke-width="3"/>')
        add(f'<text x="{left + plot_w + 46}" y="{ly + 4}">{html.escape(outcome)}</text>')
    increases = {o: max(0.0, samples[-1][1].get(o, 0.0) - samples[0][1].get(o, 0.0)) for o in present}
    ly = top + 20 + len(present) * 20
    add(f'<text x="{left + plot_w + 15}" y="{ly}" fill="#555">checks during the run:</text>')
    for index, outcome in enumerate(present):
        add(f'<text x="{left + plot_w + 15}" y="{ly + 16 + index * 15}" fill="#555">{html.escape(outcome)}: '
            f'{increases[outcome]:.0f}</text>')

    # store state band
    add(f'<text x="{left}" y="{band_top - 8}" font-weight="bold">Who decides (ratelimit_store_state == 1)</text>')
    runs = []  # consecutive scrapes in the same state, drawn as one cell
    for (t0, _, s0), (t1, _, _) in zip(samples, samples[1:]):
        if runs and runs[-1][2] == s0:
            runs[-1][1] = t1
        else:
            runs.append([t0, t1, s0])
    for t0, t1, state in runs:
        add(f'<rect x="{x(t0):.1f}" y="{band_top}" width="{max(0.5, x(t1) - x(t0)):.1f}" height="{band_h}" '
            f'fill="{STATE_COLORS.get(state, "#eeeeee")}"/>')
    add(f'<rect x="{left}" y="{band_top}" width="{plot_w}" height="{band_h}" fill="none" stroke="#9e9e9e"/>')
    for index, state in enumerate(["redis", "fallback", "local"]):
        lx = left + plot_w + 15
        ly = band_top + index * 16
        add(f'<rect x="{lx}" y="{ly}" width="14" height="10" fill="{STATE_COLORS[state]}"/>')
        add(f'<text x="{lx + 20}" y="{ly + 9}">{state}</text>')
    add(f'<text x="{left}" y="{band_top + band_h + 18}" fill="#555">seconds since the first scrape; each band cell is '
        'the state seen at the scrape that starts it</text>')
    add("</svg>")
    return "\n".join(out) + "\n"


def read_events(path):
    events = []
    if not path:
        return events
    try:
        with open(path, encoding="utf-8") as file:
            for line in file:
                parts = line.strip().split(" ", 1)
                if len(parts) == 2:
                    events.append((float(parts[0]), parts[1]))
    except FileNotFoundError:
        print(f"no events file {path}", file=sys.stderr)
    return events


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://localhost:8089", help="the application's base URL")
    parser.add_argument("--seconds", type=float, default=70, help="how long to scrape")
    parser.add_argument("--interval", type=float, default=2, help="seconds between scrapes")
    parser.add_argument("--events", help="events file written by load.sh")
    parser.add_argument("--out", default="docs/grafana/sample-run.svg", help="the SVG to write")
    parser.add_argument("--csv", help="also write the scraped totals as CSV")
    parser.add_argument("--from-csv", help="do not scrape: draw a run recorded earlier with --csv")
    args = parser.parse_args()

    if args.from_csv:
        samples = read_csv(args.from_csv)
    else:
        samples = record(args)
    if len(samples) < 2:
        sys.exit("fewer than two scrapes: is the application running with /actuator/prometheus exposed?")

    if args.csv:
        outcomes = sorted({o for _, totals, _ in samples for o in totals})
        with open(args.csv, "w", encoding="utf-8") as file:
            file.write("epoch_seconds,state," + ",".join(outcomes) + "\n")
            for t, totals, state in samples:
                file.write(f"{t:.3f},{state or ''}," + ",".join(f"{totals.get(o, 0):g}" for o in outcomes) + "\n")
    svg = render(samples, read_events(args.events), args.url, args.interval)
    with open(args.out, "w", encoding="utf-8") as file:
        file.write(svg)
    print(f"wrote {args.out} from {len(samples)} scrapes over {samples[-1][0] - samples[0][0]:.0f} s")


def record(args):
    """Scrapes every args.interval seconds for args.seconds: [(epoch seconds, {outcome: total}, state)]."""
    target = args.url.rstrip("/") + "/actuator/prometheus"
    samples = []
    deadline = time.time() + args.seconds
    next_scrape = time.time()
    while True:
        now = time.time()
        try:
            totals, state = scrape(target)
            samples.append((now, totals, state))
        except OSError as ex:
            print(f"scrape failed: {ex}", file=sys.stderr)
        if now >= deadline:
            break
        next_scrape += args.interval
        time.sleep(max(0.0, next_scrape - time.time()))
    return samples


def read_csv(path):
    samples = []
    with open(path, encoding="utf-8") as file:
        header = file.readline().strip().split(",")
        for line in file:
            values = line.strip().split(",")
            if len(values) != len(header):
                continue
            totals = {name: float(value) for name, value in zip(header[2:], values[2:])}
            samples.append((float(values[0]), totals, values[1] or None))
    return samples


if __name__ == "__main__":
    main()
