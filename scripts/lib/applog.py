"""An app's log (STATE/logs/ID.log) as the app wrote it: each line after its stamp, the
daemon's run markers left out (the format: AppLogFormat in Sources/BackgrounderCore/Text)."""
import re

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4} ")


def lines(path):
    """The app's own lines, without their newlines."""
    with open(path, errors="replace") as log:
        for line in log:
            if line.startswith("-- ") and STAMP.match(line, 3):
                continue
            line = line.rstrip("\n")
            yield line[29:] if STAMP.match(line) else line
