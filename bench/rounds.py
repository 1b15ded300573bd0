"""Figures measured in rounds: the order of the contenders alternates from
round to round, and a figure is quoted as its median with the range over
the rounds, so that one lucky or unlucky run cannot carry a claim.
A run that failed is kept as a failure, never as a number."""
import json
import statistics


def ordered(items, round_index):
    """`items` in their order on even rounds, reversed on odd ones."""
    items = list(items)
    return items if round_index % 2 == 0 else items[::-1]


def cell(values, digits=1, unit=""):
    """The median with min-max, e.g. `63.7 (61.2-65.0)`, or `2.10x (1.9-2.3)`."""
    f = f"{{:.{digits}f}}"
    return f"{f.format(statistics.median(values))}{unit} ({f.format(min(values))}-{f.format(max(values))})"


class Failed:
    """A run that does not count: a figure or a ratio that would use it
    prints `failed`."""

    def __init__(self, reason):
        self.reason = reason

    def __repr__(self):
        return f"failed ({self.reason})"


class Rounds:
    """Per-round figures: (contender, workload) -> a dict (`rate`, `p99`,
    ...) or a Failed, one per round."""

    def __init__(self):
        self.rounds = []

    def start_round(self):
        self.rounds.append({})

    def add(self, who, what, figures):
        self.rounds[-1][(who, what)] = figures

    def get(self, who, what, round_index=-1):
        return self.rounds[round_index].get((who, what)) if self.rounds else None

    def series(self, who, what, key="rate"):
        """The value in each round that has one; a Failed in place of any
        failed run; [] when never measured."""
        out = []
        for figures in self.rounds:
            f = figures.get((who, what))
            if isinstance(f, Failed):
                out.append(f)
            elif f is not None and f.get(key) is not None:
                out.append(f[key])
        return out

    def ratios(self, a, b, what, key="rate", what_b=None):
        """a / b in each round where both ran; Failed where either failed."""
        out = []
        for figures in self.rounds:
            x, y = figures.get((a, what)), figures.get((b, what_b or what))
            if x is None or y is None:
                continue
            if isinstance(x, Failed) or isinstance(y, Failed):
                out.append(Failed("a run it uses failed"))
            elif x.get(key) and y.get(key):
                out.append(x[key] / y[key])
        return out

    def to_json(self):
        """The rounds as JSON: a list per round of [contender, workload,
        figures], a failed run's figures as {"failed run": reason}."""
        return [[[who, what, {"failed run": f.reason} if isinstance(f, Failed) else f] for (who, what), f in figures.items()]
                for figures in self.rounds]

    @classmethod
    def from_json(cls, data):
        rounds = cls()
        for entries in data:
            rounds.start_round()
            for who, what, f in entries:
                rounds.add(who, what, Failed(f["failed run"]) if "failed run" in f else f)
        return rounds

    def stronger(self, name, members, what):
        """Adds `name` to every round: the member with the higher rate, or
        a Failed if any member failed (a failed run cannot be ruled out as
        the stronger)."""
        for figures in self.rounds:
            runs = [figures.get((m, what)) for m in members]
            runs = [r for r in runs if r is not None]
            if not runs:
                continue
            failed = [r for r in runs if isinstance(r, Failed)]
            figures[(name, what)] = failed[0] if failed else max(runs, key=lambda r: r["rate"])


def show(values, digits=1, unit=""):
    """A cell for a series: `-` when never measured, `failed` when any
    round failed, else the median with min-max."""
    if not values:
        return "-"
    if any(isinstance(v, Failed) for v in values):
        return "failed"
    return cell(values, digits, unit)


def median(values):
    """The median of a series, or None when empty or any round failed."""
    if not values or any(isinstance(v, Failed) for v in values):
        return None
    return statistics.median(values)
