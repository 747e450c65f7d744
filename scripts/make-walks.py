#!/usr/bin/env python3
"""Generate deterministic NMEA 0183 GPS walk fixtures for Backgrounder's tests.

Writes, under Tests/Fixtures/gps/ (or --out DIR), four NMEA logs that gpsfake
(gpsd 3.22) replays into a real gpsd, each with a NAME.truth.csv next to it:

  walk-bled.nmea          ~6 km clockwise loop around Lake Bled with a detour
                          up to the Ojstrica viewpoint (~120 m gain), a 2 min
                          stop on top, one fix / 5 s, 4 no-fix epochs first.
  stationary-jitter.nmea  10 min lying on a table in Ljubljana, one fix / 2 s,
                          correlated jitter up to ~15 m (occasionally more).
  corrupt-lines.nmea      5 min walk in Ljubljana old town, one fix / 2 s, with
                          a bad checksum, a truncated sentence, a garbage line,
                          an empty line and one wild (~2 km) outlier fix.
  short-walk.nmea         2 min walk 150 m north along Slovenska cesta, 1 Hz.

Each epoch is $GPGGA, $GPGSA, $GPRMC (a real receiver's order), checksummed,
CRLF-terminated.  The truth CSV holds the noise-free position and the reported
one (exactly as encoded in the NMEA), so tests can check move detection,
jitter rejection and geofence hysteresis against ground truth.  Deterministic
(seeded random.Random, fixed 2025 dates, no clock or locale); `--check`
regenerates into a temp dir and exits 1 if the committed files differ.

How gpsd 3.22 (via gpsfake) reads them: it learns the NMEA cycle end from the
last time-stamped sentence before the time changes, so normally one TPV per
epoch follows the RMC (the very first epoch gives 3, the first 2 without time).
RMC with status V carries no usable time, so the no-fix epochs of walk-bled
(and the lost RMC in corrupt-lines) make GGA a cycle ender too: from then on 2
TPVs per epoch, the GGA one without track and with a position-derived speed.
gpsfake's own lexer drops the garbage and empty lines; gpsd drops the bad-
checksum GGA (that epoch's TPV lacks altitude) and the truncated RMC (that
epoch yields no TPV at all).
"""
import argparse
import bisect
import datetime as dt
import filecmp
import math
import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

EARTH_R = 6371008.8  # mean Earth radius, m
KNOTS_PER_MPS = 1.0 / 0.514444
UTC = dt.timezone.utc
PRN_POOL = [2, 5, 6, 7, 9, 11, 13, 15, 17, 19, 20, 24, 28, 30]


# ---------------------------------------------------------------- geodesy --
def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(math.sqrt(a))


def bearing(lat1, lon1, lat2, lon2):
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(y, x)) % 360.0


def offset(lat, lon, east_m, north_m):
    """Move (lat, lon) by a small east/north offset in metres."""
    dlat = math.degrees(north_m / EARTH_R)
    dlon = math.degrees(east_m / (EARTH_R * math.cos(math.radians(lat))))
    return lat + dlat, lon + dlon


class Route:
    """Polyline of (lat, lon, alt_m) waypoints, interpolated by distance."""

    def __init__(self, points):
        self.pts = points
        self.cum = [0.0]
        for a, b in zip(points, points[1:]):
            self.cum.append(self.cum[-1] + haversine(a[0], a[1], b[0], b[1]))
        self.length = self.cum[-1]

    def at(self, s):
        s = min(max(s, 0.0), self.length)
        i = min(bisect.bisect_right(self.cum, s) - 1, len(self.pts) - 2)
        seg = self.cum[i + 1] - self.cum[i]
        f = (s - self.cum[i]) / seg if seg > 0 else 0.0
        a, b = self.pts[i], self.pts[i + 1]
        return tuple(a[k] + f * (b[k] - a[k]) for k in range(3))

    def course(self, s):
        a, b = self.at(s - 1.0), self.at(s + 1.0)
        return bearing(a[0], a[1], b[0], b[1])


# ---------------------------------------------------------------- epochs --
@dataclass
class Epoch:
    t: dt.datetime
    lat: float              # true position and altitude (MSL, m)
    lon: float
    alt: float
    fix: bool
    speed: float = 0.0      # true ground speed (m/s) and course (degrees)
    course: float = 0.0
    rlat: float = 0.0       # reported values: exactly what the NMEA encodes
    rlon: float = 0.0
    ralt: float = 0.0
    rspeed: float = 0.0
    hdop: float = 99.99
    vdop: float = 99.99
    pdop: float = 99.99
    sats: tuple = ()


def walk(route, start, step, rng, pre_fix=0, v_mean=1.35, v_range=(1.2, 1.5),
         stop_at=None, stop_s=0):
    """Walk the route at a slowly varying speed; optional stop at distance."""
    out, t, s, v = [], start, 0.0, v_mean
    lat, lon, alt = route.at(0.0)
    for _ in range(pre_fix):  # standing still while the receiver acquires
        out.append(Epoch(t, lat, lon, alt, False, 0.0, route.course(0.0)))
        t += dt.timedelta(seconds=step)
    stopped = stop_at is None
    while True:
        lat, lon, alt = route.at(s)
        moving = s < route.length - 1e-6 and (stopped or s < stop_at)
        out.append(Epoch(t, lat, lon, alt, True, v if moving else 0.0, route.course(s)))
        t += dt.timedelta(seconds=step)
        if s >= route.length - 1e-6:
            return out
        if not stopped and s >= stop_at:
            for _ in range(round(stop_s / step)):
                out.append(Epoch(t, lat, lon, alt, True, 0.0, route.course(s)))
                t += dt.timedelta(seconds=step)
            stopped = True
        grade = (route.at(s + 10.0)[2] - alt) / 10.0
        target = v_mean - 1.5 * max(grade, 0.0) - 0.3 * max(-grade, 0.0)
        v = target + 0.8 * (v - target) + rng.gauss(0.0, 0.03)
        v = min(max(v, v_range[0]), v_range[1])
        s_next = min(s + v * step, route.length)
        if not stopped and s < stop_at < s_next:
            s_next = stop_at
        s = s_next


# ----------------------------------------------------------- noise model --
class ArProcess:
    """First-order Gauss-Markov (AR(1)) process: correlated, mean-reverting."""

    def __init__(self, rng, mean, sigma, tau, step, lo=-math.inf, hi=math.inf):
        self.rng, self.mean, self.sigma, self.lo, self.hi = rng, mean, sigma, lo, hi
        self.a = math.exp(-step / tau)
        self.x = mean

    def next(self):
        w = self.sigma * math.sqrt(1.0 - self.a * self.a) * self.rng.gauss(0.0, 1.0)
        self.x = self.mean + self.a * (self.x - self.mean) + w
        self.x = min(max(self.x, self.lo), self.hi)
        return self.x


def add_noise(epochs, rng, step, sigma_m, tau_s, hdop_range, bumps=()):
    """Fill reported position/DOP fields. bumps: (epoch, half_width, metres,
    bearing_deg) multipath-like excursions that also raise HDOP."""
    lo, hi = hdop_range
    hdop = ArProcess(rng, (lo + hi) / 2, (hi - lo) / 4, 90.0, step, lo, hi)
    east, north = (ArProcess(rng, 0.0, sigma_m, tau_s, step) for _ in range(2))
    up = ArProcess(rng, 0.0, 1.6 * sigma_m, tau_s, step)
    order = PRN_POOL[:]
    rng.shuffle(order)
    for i, e in enumerate(epochs):
        h, de, dn, du = hdop.next(), east.next(), north.next(), up.next()
        if not e.fix:
            continue
        for (c, w, amp, brg) in bumps:
            k = max(0.0, math.cos(math.pi * (i - c) / (2 * w))) if abs(i - c) < w else 0.0
            de += amp * k * math.sin(math.radians(brg))
            dn += amp * k * math.cos(math.radians(brg))
            h = min(hi, h + (hi - lo) * k)
        scale = h / ((lo + hi) / 2)
        e.rlat, e.rlon = offset(e.lat, e.lon, de * scale, dn * scale)
        e.ralt = e.alt + du * scale
        e.hdop = round(h, 2)
        e.vdop = round(1.45 * h, 2)
        e.pdop = round(math.hypot(e.hdop, e.vdop), 2)
        nsat = max(5, min(12, round(13.5 - 3.0 * h)))
        e.sats = tuple(sorted(order[:nsat]))
        e.rspeed = max(0.0, e.speed + rng.gauss(0.0, 0.04))


# ------------------------------------------------------- NMEA formatting --
def sentence(body):
    cs = 0
    for ch in body.encode("ascii"):
        cs ^= ch
    return f"${body}*{cs:02X}"


def nmea_angle(value, deg_width, hemis):
    """Degrees -> ((d)ddmm.mmmm, hemisphere, the value a parser decodes)."""
    sign, hemi = (1, hemis[0]) if value >= 0 else (-1, hemis[1])
    units = round(abs(value) * 600000)  # 1/10000 of an arc minute
    deg, rest = divmod(units, 600000)
    field = f"{deg:0{deg_width}d}{rest // 10000:02d}.{rest % 10000:04d}"
    return field, hemi, sign * (deg + rest / 600000)


def epoch_sentences(e, geoid_sep):
    hms = e.t.strftime("%H%M%S") + ".00"
    date = e.t.strftime("%d%m%y")
    if not e.fix:
        return [sentence(f"GPGGA,{hms},,,,,0,00,99.99,,,,,,"),
                sentence("GPGSA,A,1" + "," * 12 + ",99.99,99.99,99.99"),
                sentence(f"GPRMC,{hms},V,,,,,,,{date},,,N")]
    lat, ns, e.rlat = nmea_angle(e.rlat, 2, "NS")  # keep CSV == NMEA
    lon, ew, e.rlon = nmea_angle(e.rlon, 3, "EW")
    prns = [f"{p:02d}" for p in e.sats] + [""] * (12 - len(e.sats))
    knots = e.rspeed * KNOTS_PER_MPS
    course = f"{e.course:.1f}" if e.rspeed > 0.1 else ""
    return [
        sentence(f"GPGGA,{hms},{lat},{ns},{lon},{ew},1,{len(e.sats):02d},"
                 f"{e.hdop:.2f},{e.ralt:.1f},M,{geoid_sep:.1f},M,,"),
        sentence(f"GPGSA,A,3,{','.join(prns)},{e.pdop:.2f},{e.hdop:.2f},{e.vdop:.2f}"),
        sentence(f"GPRMC,{hms},A,{lat},{ns},{lon},{ew},{knots:.3f},{course},{date},,,A"),
    ]


# ---------------------------------------------------------------- output --
def write_fixture(out_dir, name, header, epochs, geoid_sep, mangle=None):
    # gpsfake passes '#' lines mentioning "Date:" to gpsd and obeys "Serial:",
    # "Transport:" and "Delay-Cookie:"; keep those words out of headers.
    header += [f"Generated by scripts/make-walks.py - do not edit; truth in {name}.truth.csv"]
    lines = [f"# {h}" for h in header]
    for i, e in enumerate(epochs):
        group = epoch_sentences(e, geoid_sep)
        lines += mangle(i, group) if mangle else group
    (out_dir / f"{name}.nmea").write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    rows = ["time_iso8601,lat,lon,alt_m,fix,reported_lat,reported_lon,hdop"]
    for e in epochs:
        rep = f"{e.rlat:.7f},{e.rlon:.7f},{e.hdop:.2f}" if e.fix else ",,"
        rows.append(f"{e.t.strftime('%Y-%m-%dT%H:%M:%SZ')},{e.lat:.7f},{e.lon:.7f},"
                    f"{e.alt:.2f},{int(e.fix)},{rep}")
    (out_dir / f"{name}.truth.csv").write_bytes(("\n".join(rows) + "\n").encode("ascii"))
    secs = (epochs[-1].t - epochs[0].t).total_seconds()
    metres = sum(haversine(a.lat, a.lon, b.lat, b.lon) for a, b in zip(epochs, epochs[1:]))
    print(f"{name}.nmea: {len(epochs)} epochs, {metres:.0f} m, "
          f"{int(secs) // 60}m{int(secs) % 60:02d}s")


# ------------------------------------------------------------- scenarios --
BLED_SHORE = [  # clockwise from the north shore; (lat, lon, alt_m)
    (46.36530, 14.08967, 476), (46.36613, 14.09293, 477), (46.36697, 14.09661, 478),
    (46.36813, 14.09976, 478), (46.36876, 14.10290, 477), (46.36855, 14.10574, 476),
    (46.36718, 14.10742, 476), (46.36477, 14.10700, 476), (46.36246, 14.10616, 477),
    (46.35983, 14.10469, 477), (46.35858, 14.10217, 476), (46.35826, 14.09870, 477),
    (46.35847, 14.09503, 476), (46.35900, 14.09136, 477), (46.35952, 14.08768, 477),
    (46.35941, 14.08558, 478),  # trail junction below Ojstrica
]
OJSTRICA_TRAIL = [  # switchbacks up to the viewpoint (last point)
    (46.35895, 14.08600, 500), (46.35870, 14.08500, 525), (46.35845, 14.08570, 548),
    (46.35822, 14.08460, 570), (46.35792, 14.08410, 585), (46.35810, 14.08340, 596),
]
BLED_BACK = [(46.36068, 14.08243, 476), (46.36257, 14.08138, 476), (46.36424, 14.08243, 476),
             (46.36509, 14.08516, 477), (46.36530, 14.08967, 476)]


def scenario_bled(out_dir):
    rng = random.Random(20250614)
    junction = BLED_SHORE[-1]
    route = Route(BLED_SHORE + OJSTRICA_TRAIL + OJSTRICA_TRAIL[-2::-1] + [junction] + BLED_BACK)
    top = route.cum[len(BLED_SHORE) + len(OJSTRICA_TRAIL) - 1]
    epochs = walk(route, dt.datetime(2025, 6, 14, 7, 30, tzinfo=UTC), 5, rng,
                  pre_fix=4, stop_at=top, stop_s=120)
    add_noise(epochs, rng, 5, sigma_m=2.0, tau_s=60.0, hdop_range=(0.8, 1.6))
    write_fixture(out_dir, "walk-bled", [
        "walk-bled: clockwise loop around Lake Bled (SI) with a detour up to the",
        "Ojstrica viewpoint (596 m, lake ~476 m), 2 min stop on top. 1 fix / 5 s.",
        "First 4 epochs: no fix yet (GGA quality 0, GSA mode 1, RMC status V).",
    ], epochs, 47.0)


def scenario_stationary(out_dir):
    rng = random.Random(20250303)
    lat, lon = 46.0569, 14.5058
    start = dt.datetime(2025, 3, 3, 10, 0, tzinfo=UTC)
    epochs = [Epoch(start + dt.timedelta(seconds=2 * i), lat, lon, 298.0, True)
              for i in range(301)]
    bumps = [(rng.randrange(20, 280), rng.randrange(4, 9), rng.uniform(6, 10),
              rng.uniform(0, 360)) for _ in range(3)]
    add_noise(epochs, rng, 2, sigma_m=3.5, tau_s=40.0, hdop_range=(1.0, 3.0), bumps=bumps)
    for e in epochs:  # a still receiver still reports a little Doppler speed
        e.rspeed, e.course = rng.uniform(0.0, 0.15), rng.uniform(0.0, 360.0)
    write_fixture(out_dir, "stationary-jitter", [
        "stationary-jitter: receiver on a table in Ljubljana (46.0569 N, 14.5058 E)",
        "for 10 min, 1 fix / 2 s. Correlated jitter up to ~15 m with 3 multipath",
        "excursions; HDOP 1.0-3.0; reported speed < 0.3 kn. Must never count as a move.",
    ], epochs, 46.5)


def scenario_corrupt(out_dir):
    rng = random.Random(20250520)
    route = Route([(46.05145, 14.50612, 296), (46.05102, 14.50636, 296),
                   (46.05030, 14.50690, 296), (46.04985, 14.50705, 297),
                   (46.04905, 14.50660, 297), (46.04822, 14.50605, 297)])
    epochs = walk(route, dt.datetime(2025, 5, 20, 16, 0, tzinfo=UTC), 2, rng, v_mean=1.3)
    add_noise(epochs, rng, 2, sigma_m=2.0, tau_s=40.0, hdop_range=(0.8, 1.6))
    bad_cs, cut, junk, empty, wild = 20, 45, 60, 75, 90
    e = epochs[wild]
    e.rlat, e.rlon = offset(e.lat, e.lon, 2000 * math.sin(1.0), 2000 * math.cos(1.0))
    e.hdop, e.vdop, e.pdop, e.sats = 0.9, 1.3, 1.58, tuple(sorted(PRN_POOL[:11]))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,;:-+=%&()"
    garbage = "".join(rng.choice(alphabet) for _ in range(57))

    def mangle(i, group):
        if i == bad_cs:  # GGA with a wrong checksum
            s = group[0]
            return [s[:-2] + f"{int(s[-2:], 16) ^ 0x5A:02X}"] + group[1:]
        if i == cut:  # RMC cut mid-sentence, no checksum
            return group[:2] + [group[2][:len(group[2]) // 2 - 8]]
        if i == junk:
            return group + [garbage]
        if i == empty:
            return group + [""]
        return group

    hms = {k: epochs[k].t.strftime("%H:%M:%S") for k in (bad_cs, cut, junk, empty, wild)}
    write_fixture(out_dir, "corrupt-lines", [
        "corrupt-lines: 5 min walk through Ljubljana old town, 1 fix / 2 s, with damage:",
        f"{hms[bad_cs]} GGA has a wrong checksum; {hms[cut]} RMC truncated (no checksum);",
        f"after {hms[junk]} a line of garbage; after {hms[empty]} an empty line;",
        f"{hms[wild]} wild outlier fix ~2 km away with HDOP 0.9 (truth CSV keeps true position).",
    ], epochs, 46.5, mangle)


def scenario_short(out_dir):
    rng = random.Random(20250410)
    lat0, lon0 = 46.05100, 14.50280
    route = Route([(lat0, lon0, 295.0), offset(lat0, lon0, 0.0, 150.0) + (295.0,)])
    epochs = walk(route, dt.datetime(2025, 4, 10, 12, 0, tzinfo=UTC), 1, rng,
                  v_mean=1.25, v_range=(1.25, 1.25))
    add_noise(epochs, rng, 1, sigma_m=1.5, tau_s=30.0, hdop_range=(0.8, 1.2))
    write_fixture(out_dir, "short-walk", [
        "short-walk: 2 min, 150 m straight north along Slovenska cesta, Ljubljana, 1 Hz.",
    ], epochs, 46.5)


def generate(out_dir):
    for scenario in (scenario_bled, scenario_stationary, scenario_corrupt, scenario_short):
        scenario(out_dir)


def main():
    repo = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=repo / "Tests" / "Fixtures" / "gps")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temp dir and compare with --out")
    args = ap.parse_args()
    if not args.check:
        args.out.mkdir(parents=True, exist_ok=True)
        return generate(args.out) or 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        bad = [p.name for p in sorted(Path(tmp).iterdir())
               if not (args.out / p.name).is_file()
               or not filecmp.cmp(p, args.out / p.name, shallow=False)]
    for name in bad:
        print(f"make-walks: {args.out / name} is stale or missing; rerun scripts/make-walks.py",
              file=sys.stderr)
    print("make-walks: fixtures up to date" if not bad else f"make-walks: {len(bad)} file(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
