"""Tag clinical texts with a trained deid-crf model.

    python -m deid_crf.tag note.txt                   # BRAT annotations on stdout
    python -m deid_crf.tag note.txt --format json
    cat note.txt | python -m deid_crf.tag -
    python -m deid_crf.tag notes/ -o tagged/          # tagged/NAME.ann + NAME.txt

Exit status: 0 when every input was tagged, 1 when some input could not be read
(each is reported with its path and reason, the others are still tagged), 2 for a
usage error or a missing model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .config import default_model_dir
from .corpus import CorpusError, Document, atomic_write_text, decode_text, read_text
from .output import FORMATS, SUFFIXES, render
from .tagger import DeidTagger, ModelNotFoundError

STDIN = "-"


def collect_inputs(inputs: list[str]) -> tuple[list[str], list[str]]:
    """Expand directories to their ``*.txt`` files; returns (paths, problems)."""
    paths, problems = [], []
    for item in inputs:
        if item == STDIN:
            paths.append(STDIN)
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(str(p) for p in path.glob("*.txt"))
            if not found:
                problems.append(f"{path}: directory has no .txt files")
            paths.extend(found)
        elif path.exists():
            paths.append(str(path))
        else:
            problems.append(f"{path}: no such file or directory")
    return paths, problems


def read_input(path: str, encoding: str) -> Document:
    if path == STDIN:
        return Document("stdin", decode_text(sys.stdin.buffer.read(), "<stdin>", encoding))
    return Document(Path(path).stem, read_text(path, encoding))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m deid_crf.tag",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="text files, directories of .txt files, or - for stdin"
    )
    parser.add_argument(
        "--model", type=Path, default=None, help="model directory (default: $DEID_CRF_MODEL_DIR or models/crf)"
    )
    parser.add_argument("--format", choices=FORMATS, default="brat", help="output format (default: brat)")
    parser.add_argument(
        "-o", "--output-dir", type=Path, help="write NAME.ann/.json/.conll (and NAME.txt for brat) here"
    )
    parser.add_argument("--encoding", default="utf-8", help="encoding of the inputs (default: utf-8)")
    parser.add_argument("--n-jobs", type=int, default=-1, help="processes for tagging (default: all cores)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    paths, problems = collect_inputs(args.inputs)
    if len(paths) > 1 and args.output_dir is None:
        parser.error("several inputs need -o OUTPUT_DIR")
    if args.output_dir is not None and STDIN in paths and len(paths) > 1:
        parser.error("'-' (stdin) cannot be mixed with other inputs")
    if args.output_dir is not None and args.output_dir.exists() and not args.output_dir.is_dir():
        parser.error(f"{args.output_dir} exists and is not a directory")

    model_dir = args.model or default_model_dir()
    try:
        tagger = DeidTagger.load(model_dir, n_jobs=args.n_jobs)
    except ModelNotFoundError:
        print(
            f"error: no trained model in {model_dir}; run `make train-crf` first or pass --model DIR", file=sys.stderr
        )
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: cannot load model: {exc}", file=sys.stderr)
        return 2

    docs, sources, seen = [], [], set()
    for path in paths:
        try:
            doc = read_input(path, args.encoding)
        except CorpusError as exc:
            problems.append(str(exc))
            continue
        if doc.doc_id in seen:
            problems.append(f"{path}: another input has the same name {doc.doc_id!r}; skipped")
            continue
        seen.add(doc.doc_id)
        docs.append(doc)
        sources.append(path)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    n_input_problems = len(problems)

    predicted = tagger.tag_texts([d.text for d in docs]) if docs else []
    tokenizer = tagger.tokenizer()
    for doc, source, entities in zip(docs, sources, predicted, strict=False):
        doc.entities = entities
        rendered = render(doc, args.format, tokenizer)
        if args.output_dir is None:
            sys.stdout.write(rendered)
            continue
        try:
            write_outputs(doc, source, rendered, args.output_dir, args.format)
        except OSError as exc:
            problems.append(
                f"{args.output_dir}: cannot write output for {source} ({exc.strerror or type(exc).__name__})"
            )
            print(f"error: {problems[-1]}", file=sys.stderr)
    if args.output_dir is not None:
        written = len(docs) - (len(problems) - n_input_problems)
        print(f"tagged {written} document(s) into {args.output_dir}; {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


def write_outputs(doc: Document, source: str, rendered: str, output_dir: Path, fmt: str) -> None:
    """Write the rendered annotations (and, for BRAT, the text beside them)."""
    atomic_write_text(output_dir / f"{doc.doc_id}{SUFFIXES[fmt]}", rendered)
    if fmt == "brat":
        # The text beside the .ann makes the directory a BRAT collection; re-encoding
        # the decoded text as UTF-8 is byte-exact for UTF-8 input (BOM included).
        target = output_dir / f"{doc.doc_id}.txt"
        if source == STDIN or not target.exists() or not target.samefile(source):
            atomic_write_text(target, doc.text)


if __name__ == "__main__":
    raise SystemExit(main())
