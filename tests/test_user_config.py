"""The user configuration (``tag --config FILE``): strict checking, and what each part does."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from deid_crf.deid.deidentifier import Deidentifier
from deid_crf.deid.rules import RuleLayer, rule_layer
from deid_crf.deid.user_config import ConfigError, hasher, load_secret, parse_user_config, with_user_config
from deid_crf.tag import main
from deid_crf.text.spans import PHISpan

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "docs" / "user-config.example.toml"
SECRET = "0123456789abcdef-not-a-real-secret"


def layer(source: str, base: RuleLayer | None = None) -> RuleLayer:
    return with_user_config(base or rule_layer("off", propagate=False), parse_user_config(source, "cfg.toml"))


# ----------------------------------------------------------------------------- checking


@pytest.mark.parametrize(
    ("source", "key", "problem"),
    [
        ("colour = 1", "colour", "unknown key"),
        ("[[allow]]\nwords = ['a']\nwordz = ['b']", "allow[0].wordz", "unknown key"),
        ("[[allow]]\nwords = 'a'", "allow[0].words", "array of non-empty strings"),
        ("[[allow]]\nignore_case = true", "allow[0]", "needs words or patterns"),
        ("allow = 3", "allow", "array of tables"),
        ("[[deny]]\nwords = ['a']", "deny[0].type", "missing"),
        ("[[deny]]\ntype = 'NOMBRE'\nwords = ['a']", "deny[0].type", "unknown entity type"),
        ("[[deny]]\ntype = 'FECHAS'\npatterns = ['(ab']", "deny[0].patterns[0]", "invalid regular expression"),
        ("[[deny]]\ntype = 'FECHAS'\npatterns = ['a*']", "deny[0].patterns[0]", "matches the empty string"),
        ("[[recognizers]]\nname = 'x'\ntype = 'FECHAS'", "recognizers[0].pattern", "missing"),
        (
            "[[recognizers]]\nname = 'x'\ntype = 'FECHAS'\npattern = '\\d+'\nvalidator = 'es.nothing'",
            "recognizers[0].validator",
            "unknown validator",
        ),
        (
            "[[recognizers]]\nname = 'x'\ntype = 'FECHAS'\npattern = '\\d+'\ncontext_window = 0",
            "recognizers[0].context_window",
            "integer from 1 to 50",
        ),
        (
            "[[recognizers]]\nname = 'x'\ntype = 'FECHAS'\npattern = '\\d+'\ncontext = ['dos palabras']",
            "recognizers[0].context",
            "one word",
        ),
        ("[actions]\nFECHAS = 'shred'", "actions.FECHAS", "must be one of"),
        ("[actions]\nFECHA = 'mask'", "actions.FECHA", "unknown key"),
        ("[thresholds]\nFECHAS = 1.5", "thresholds.FECHAS", "from 0 to 1"),
        ("[thresholds]\nFECHAS = true", "thresholds.FECHAS", "from 0 to 1"),
        ("[actions]\nFECHAS = 'hash'", "hash", "needs a secret"),
        ("[hash]\nsecret_env = 'A'\nsecret_file = 'b'", "hash", "not both"),
    ],
)
def test_bad_configuration_names_file_and_key(source, key, problem):
    with pytest.raises(ConfigError) as caught:
        parse_user_config(source, "site.toml")
    message = str(caught.value)
    assert message.startswith(f"site.toml: {key}: "), message
    assert problem in message


def test_invalid_toml_names_the_file():
    with pytest.raises(ConfigError, match=r"^site.toml: not valid TOML \(.*line 2, column 5"):
        parse_user_config("a = 1\nb = \n", "site.toml")


def test_errors_never_quote_the_values_of_the_file():
    # A deny list is PHI (a staff list): a problem in it is named by its key only.
    with pytest.raises(ConfigError) as caught:
        parse_user_config("[[deny]]\ntype = 'FECHAS'\nwords = ['Yolanda Perpiñá']\npatterns = ['(Perpiñá']", "s.toml")
    assert "Perpiñá" not in str(caught.value)


def test_cli_bad_config_is_a_usage_error_naming_file_and_key(tmp_path, tiny_model_dir, capsys):
    config = tmp_path / "site.toml"
    config.write_text("[[deny]]\ntype = 'FECHAS'\npatterns = ['(Perpiñá']\n", encoding="utf-8")
    note = tmp_path / "note.txt"
    note.write_text("Nombre: Ana.\n", encoding="utf-8")
    status = main([str(note), "--model", str(tiny_model_dir), "--config", str(config), "-j", "1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "site.toml: deny[0].patterns[0]: invalid regular expression" in err
    assert "Perpiñá" not in err and "Traceback" not in err


def test_secret_from_env_and_file(tmp_path, monkeypatch):
    config = parse_user_config("[actions]\nFECHAS = 'hash'\n[hash]\nsecret_env = 'SITE_SECRET'", "s.toml")
    monkeypatch.delenv("SITE_SECRET", raising=False)
    with pytest.raises(ConfigError, match="SITE_SECRET is not set"):
        load_secret(config, "s.toml")
    monkeypatch.setenv("SITE_SECRET", "short")
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        load_secret(config, "s.toml")
    monkeypatch.setenv("SITE_SECRET", SECRET)
    assert load_secret(config, "s.toml") == SECRET.encode()
    (tmp_path / "key").write_text(SECRET + "\n")
    from_file = parse_user_config("[hash]\nsecret_file = 'key'", "s.toml", tmp_path)
    assert load_secret(from_file, "s.toml") == SECRET.encode()


# ----------------------------------------------------------------------------- what it does


def test_allow_list_drops_spans_by_word_pattern_and_type():
    text = "Toma OMEPRAZOL en el Servicio de Urgencias del Hospital Sur."
    rules = layer(
        "[[allow]]\nwords = ['omeprazol']\nignore_case = true\n"
        "[[allow]]\ntypes = ['HOSPITAL']\npatterns = ['Servicio de \\w+']\n"
    )

    def at(value: str, type_: str) -> PHISpan:
        return PHISpan(text.index(value), text.index(value) + len(value), type_, 0.9)

    spans = [
        at("OMEPRAZOL", "NOMBRE_SUJETO_ASISTENCIA"),
        at("Servicio de Urgencias", "HOSPITAL"),
        at("Hospital Sur", "HOSPITAL"),
    ]
    kept = rules.apply(text, spans)
    assert [text[s.start : s.end] for s in kept] == ["Hospital Sur"]
    # The type-limited entry does not allow the same words as another type.
    other = rules.apply(text, [at("Servicio de Urgencias", "INSTITUCION")])
    assert [s.type for s in other] == ["INSTITUCION"]


def test_deny_list_wins_over_model_spans_and_matches_whole_words_only():
    text = "Visto por Pilar Cano Ruiz. Pilar Canoa no. EMP-12345."
    rules = layer(
        "[[deny]]\ntype = 'NOMBRE_PERSONAL_SANITARIO'\nwords = ['Pilar Cano']\n"
        "[[deny]]\ntype = 'ID_EMPLEO_PERSONAL_SANITARIO'\npatterns = ['EMP-\\d{5}']\n"
    )
    model = [PHISpan(10, 25, "NOMBRE_SUJETO_ASISTENCIA", 0.6)]
    found = {(text[s.start : s.end], s.type) for s in rules.apply(text, model)}
    assert ("Pilar Cano", "NOMBRE_PERSONAL_SANITARIO") in found
    assert ("Ruiz", "NOMBRE_SUJETO_ASISTENCIA") in found  # the model's span keeps what the deny span leaves
    assert ("EMP-12345", "ID_EMPLEO_PERSONAL_SANITARIO") in found
    assert not any(value.startswith("Pilar Canoa") for value, _ in found)


def test_recognizer_with_context_and_validator():
    rules = layer(
        "[[recognizers]]\nname = 'hc'\ntype = 'ID_SUJETO_ASISTENCIA'\npattern = 'HC-\\d{6}'\n"
        "context = ['historia']\ncontext_window = 2\n"
        "[[recognizers]]\nname = 'dni'\ntype = 'ID_SUJETO_ASISTENCIA'\npattern = '\\b\\d{8}[A-Z]\\b'\n"
        "validator = 'es.dni'\n"
    )
    text = "Historia HC-123456. Código HC-654321. La historia de hoy, HC-111111. DNI 12345678Z o 12345678A."
    found = [text[s.start : s.end] for s in rules.apply(text, [])]
    # With "historia" within 2 words before; not 4 words before; only the valid DNI.
    assert found == ["HC-123456", "12345678Z"]


def test_user_recognizers_run_with_the_rules_off_and_merge_with_them_on():
    source = "[[recognizers]]\nname = 'x'\ntype = 'FECHAS'\npattern = 'día D'\n"
    text = "Cita el día D a las 10."
    assert [(s.start, s.end) for s in layer(source).apply(text, [])] == [(8, 13)]
    with_rules = layer(source, rule_layer("default", propagate=False))
    assert (8, 13, "FECHAS") in {(s.start, s.end, s.type) for s in with_rules.apply(text, [])}


def test_thresholds_drop_low_confidence_model_spans_only():
    rules = layer("[thresholds]\nPROFESION = 0.8\n")
    text = "Es albañil y fontanero."
    spans = [PHISpan(3, 10, "PROFESION", 0.95), PHISpan(13, 22, "PROFESION", 0.7)]
    assert [(s.start, s.end) for s in rules.apply(text, spans)] == [(3, 10)]
    # NaN (a format that does not compute confidences) is never below a threshold.
    assert len(rules.apply(text, [PHISpan(13, 22, "PROFESION", math.nan)])) == 1


def test_actions_keep_hash_mask_and_surrogate(tiny_tagger):
    config = parse_user_config(
        "[actions]\nNOMBRE_SUJETO_ASISTENCIA = 'keep'\nID_SUJETO_ASISTENCIA = 'hash'\nFECHAS = 'surrogate'\n"
        "[hash]\nsecret_env = 'X'\n",
        "s.toml",
    )
    digest = hasher(SECRET.encode(), config.hash_length)
    deid = Deidentifier(tiny_tagger, rules="off", seed=3, actions=config.actions, hash_value=digest)
    text = "Nombre: Ana. NHC: 745120. Fecha: 19/08/1949. Edad: 60."
    spans = [
        PHISpan(8, 11, "NOMBRE_SUJETO_ASISTENCIA"),
        PHISpan(18, 24, "ID_SUJETO_ASISTENCIA"),
        PHISpan(33, 43, "FECHAS"),
        PHISpan(51, 53, "EDAD_SUJETO_ASISTENCIA"),
    ]
    result = deid.apply(text, spans, "masked", "d1")
    by_type = {s.type: s.replacement for s in result.spans}
    assert by_type["NOMBRE_SUJETO_ASISTENCIA"] == "Ana"
    assert by_type["ID_SUJETO_ASISTENCIA"] == digest("ID_SUJETO_ASISTENCIA", "745120")
    assert len(by_type["ID_SUJETO_ASISTENCIA"]) == 12 and by_type["ID_SUJETO_ASISTENCIA"] != "745120"
    assert by_type["FECHAS"] not in ("19/08/1949", "[FECHAS]") and "/" in by_type["FECHAS"]
    assert by_type["EDAD_SUJETO_ASISTENCIA"] == "[EDAD_SUJETO_ASISTENCIA]"
    # Keyed: the same value gives the same digits; another secret other digits.
    assert hasher(SECRET.encode())("ID_SUJETO_ASISTENCIA", "745120") == by_type["ID_SUJETO_ASISTENCIA"]
    assert hasher(b"another-secret-of-16-bytes")("ID_SUJETO_ASISTENCIA", "745120") != by_type["ID_SUJETO_ASISTENCIA"]


def test_the_documented_example_parses_and_works(tmp_path, tiny_model_dir, monkeypatch, capsys):
    monkeypatch.setenv("DEID_CRF_HASH_SECRET", SECRET)
    source = EXAMPLE.read_text(encoding="utf-8")
    config = parse_user_config(source, EXAMPLE.name, EXAMPLE.parent)
    assert config.actions["ID_SUJETO_ASISTENCIA"] == "hash" and config.secret_env == "DEID_CRF_HASH_SECRET"
    note = tmp_path / "in" / "note.txt"
    note.parent.mkdir()
    text = (
        "Paciente con historia HC-1234567. Toma Omeprazol.\nFirmado: Dra. Yolanda Perpiñá (EMP-12345). NIE X1234567L.\n"
    )
    note.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    args = [str(note.parent), "-o", str(out), "--format", "json", "--config", str(EXAMPLE), "-j", "1"]
    assert main([*args, "--model", str(tiny_model_dir)]) == 0
    entities = json.loads((out / "note.json").read_text(encoding="utf-8"))["entities"]
    found = {(e["text"], e["type"]) for e in entities}
    assert ("HC-1234567", "ID_SUJETO_ASISTENCIA") in found
    assert ("Dra. Yolanda Perpiñá", "NOMBRE_PERSONAL_SANITARIO") in found
    assert ("EMP-12345", "ID_EMPLEO_PERSONAL_SANITARIO") in found
    assert ("X1234567L", "ID_SUJETO_ASISTENCIA") in found
    assert not any(value == "Omeprazol" for value, _ in found)
    # The masked format hashes the patient ids (the example's action) with the secret.
    masked = tmp_path / "masked"
    args[args.index("-o") + 1], args[args.index("--format") + 1] = str(masked), "masked"
    assert main([*args, "--model", str(tiny_model_dir)]) == 0
    output = (masked / "note.txt").read_text(encoding="utf-8")
    assert hasher(SECRET.encode())("ID_SUJETO_ASISTENCIA", "HC-1234567") in output
    assert "HC-1234567" not in output and "Perpiñá" not in output
    assert "Perpiñá" not in capsys.readouterr().err


def test_a_changed_configuration_is_a_changed_run(tmp_path, tiny_model_dir, capsys):
    note = tmp_path / "in" / "note.txt"
    note.parent.mkdir()
    note.write_text("Nombre: Ana. EMP-12345.\n", encoding="utf-8")
    config = tmp_path / "site.toml"
    config.write_text("[[deny]]\ntype = 'ID_EMPLEO_PERSONAL_SANITARIO'\npatterns = ['EMP-\\d{5}']\n")
    args = [str(note.parent), "-o", str(tmp_path / "out"), "--config", str(config), "-j", "1"]
    assert main([*args, "--model", str(tiny_model_dir)]) == 0
    config.write_text("[[deny]]\ntype = 'ID_EMPLEO_PERSONAL_SANITARIO'\npatterns = ['EMP-\\d{4}']\n")
    with pytest.raises(SystemExit) as refused:
        main([*args, "--model", str(tiny_model_dir)])
    assert refused.value.code == 2
    assert "user_config_sha256" in capsys.readouterr().err
