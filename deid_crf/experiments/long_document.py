"""Time one long single-line document through the tagging command line.

    python -m deid_crf.experiments.long_document [--mib 10] [--format masked] [--model models/crf]

The dev split's texts, their line breaks turned into spaces, are laid end to end
(repeated as needed) into one line of ``--mib`` MiB (10 by default, the default
``--max-bytes``), written to a temporary file and de-identified by ``python -m
deid_crf.tag FILE --format FORMAT -j 1`` in a child process. Printed: the wall time,
the child's CPU time (user + system), its peak memory and the number of spans
(output lines of the brat format). The issue's target is under 60 s for 10 MiB; the
rule layer's merging and name propagation were quadratic in the spans of a document
before (1 MiB took 12 s, 2 MiB 31 s), then the leak audit, and the scores and marginals
of the whole document as arrays took 3 to 6 GB (docs/results.md, "Long documents").
A run is only a measurement when nothing else uses the CPU.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deid_crf.config import data_dir, default_model_dir

TARGET_SECONDS = 60.0
NEWLINE = b"\n"


def long_line(dev: Path, size: int) -> bytes:
    """``size`` bytes (cut at a character boundary) of the dev texts on one line."""
    texts = [p.read_text(encoding="utf-8").replace("\r", " ").replace("\n", " ") for p in sorted(dev.glob("*.txt"))]
    blob = " ".join(texts).encode("utf-8")
    data = (blob + b" ") * (size // (len(blob) + 1) + 1)
    return data[:size].decode("utf-8", "ignore").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.experiments.long_document", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $DEID_CRF_DATA_DIR or ../shared/data")
    parser.add_argument("--model", type=Path, default=None, help="default: $DEID_CRF_MODEL_DIR or models/crf")
    parser.add_argument("--mib", type=float, default=10.0, help="document size in MiB (default: 10)")
    parser.add_argument("--format", default="masked", help="output format (default: masked)")
    args = parser.parse_args(argv)
    dev = (args.data_dir or data_dir()) / "meddocan" / "dev"
    model = args.model or default_model_dir()
    size = int(args.mib * 1024 * 1024)
    with tempfile.TemporaryDirectory(prefix="deid-long-") as tmp:
        note = Path(tmp) / "long.txt"
        data = long_line(dev, size)
        note.write_bytes(data)
        command = [sys.executable, "-m", "deid_crf.tag", str(note), "--format", args.format, "-j", "1"]
        command += ["--model", str(model), "--max-bytes", str(max(size, 1))]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True)
        seconds = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        print(result.stderr.decode("utf-8", "replace"), file=sys.stderr)
        return result.returncode
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"document: {len(data):,} bytes on one line; format {args.format}")
    print(f"wall {seconds:.1f} s, CPU {cpu:.1f} s, peak memory {after.ru_maxrss / 1024:,.0f} MiB")
    if args.format == "brat":
        print(f"spans: {result.stdout.count(NEWLINE):,}")
    if args.mib == 10:
        print(f"target < {TARGET_SECONDS:.0f} s: {'met' if seconds < TARGET_SECONDS else 'not met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
