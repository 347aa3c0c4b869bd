"""The rule layer: recognizers of highly structured PHI, merged with the model's spans.

Each :class:`Recognizer` finds spans of one kind of PHI in a text; the recognizers
live in :mod:`deid_crf.deid.recognizers` (e-mail, web, IP and MAC addresses; phone,
fax and pager numbers read by ``phonenumbers``; DNI/NIE, CIF, IBAN and NASS numbers
with valid check digits from ``python-stdnum``; record, health-card and staff numbers
after their label; postal codes in an address; dates; health services, national
bodies and town councils). The rule layer (:class:`RuleLayer`) runs them and merges their spans with the model's under a
priority per entity type (:func:`deid_crf.text.spans.combine`).

The shipped priorities (:data:`DEFAULT_PRIORITY`) were chosen per type on MEDDOCAN
dev with::

    python -m deid_crf.experiments.rules_table        # or: make rules-table

which prints, for every type a recognizer can produce, the model's F1 alone and with
the rules under each priority (table in docs/results.md, "Rule layer").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import accumulate

from deid_crf.deid.recognizers.addresses import street_tails, streets_with_their_estates
from deid_crf.deid.recognizers.ages import (
    AGE,
    ages_after_patient_names,
    ages_before_their_unit,
    ages_with_their_months,
    durations_not_ages,
    find_ages_in_words,
    find_labelled_ages,
    find_young_ages,
    patients_before_their_age,
    stated_ages,
)
from deid_crf.deid.recognizers.common import (
    COLLEGIATE_ID,
    CONTACT_ID,
    DATE,
    DEVICE_ID,
    EMAIL,
    EMPLOYEE_ID,
    FAX,
    INSTITUTION,
    INSURANCE_ID,
    OTHER_ID,
    OTHER_SUBJECT,
    PATIENT_ID,
    PHONE,
    PROTOCOL_ADDRESS,
    SP,
    SPAN_BREAKS,
    STREET,
    TERRITORY,
    URL,
    Match,
)
from deid_crf.deid.recognizers.dates import dates_with_their_basque_weekday, dates_with_their_year, find_dates
from deid_crf.deid.recognizers.dictation import find_dictated_numbers
from deid_crf.deid.recognizers.foreign_hospitals import find_foreign_hospitals
from deid_crf.deid.recognizers.hospital_acronyms import (
    find_hospital_acronyms,
    find_hospital_kinds,
    find_hospital_short_names,
    find_hospitals_after_services,
)
from deid_crf.deid.recognizers.institutions import (
    HOSPITAL,
    areas_with_their_place,
    find_health_areas,
    find_institutions,
    hospitals_without_their_town,
    names_over_elisions,
    organisations,
)
from deid_crf.deid.recognizers.internet import find_emails, find_ips, find_urls
from deid_crf.deid.recognizers.labelled_ids import (
    BIOMETRIC_ID,
    find_biometric_codes,
    find_collegiate,
    find_labelled_ids,
    find_sample_codes,
    ids_with_their_letters,
    labels_cut_from_ids,
    staff_before_their_numbers,
    staff_named_before_their_numbers,
    staff_numbers_after_names,
)
from deid_crf.deid.recognizers.lower_case_names import find_lower_case_names
from deid_crf.deid.recognizers.marks import find_tattoos
from deid_crf.deid.recognizers.names import (
    STAFF,
    completed_names,
    find_called_names,
    find_labelled_patients,
    find_labelled_staff,
    given_names_after_comma,
    hyphenated_names,
    initials_before_names,
    newborns_mothers,
    nicknames_after_names,
    patient_named_everywhere,
    roles_from_labels,
    surnames_before_given_names,
    titled_staff,
    without_titles,
)
from deid_crf.deid.recognizers.national_ids import (
    dni_letter,
    find_bank_accounts,
    find_cif,
    find_dni,
    find_nass,
    nass_is_valid,
    relatives_national_ids,
)
from deid_crf.deid.recognizers.non_entities import NAME_TYPES, is_field_label, is_no_entity
from deid_crf.deid.recognizers.phones import find_phones
from deid_crf.deid.recognizers.places import (
    COUNTRY,
    find_foreign_addresses,
    find_home_places,
    find_neighbourhoods,
    joined_places,
    other_names_of_places,
    places_by_name,
    places_in_datelines,
    split_at_slashes,
    towns_after_countries,
    towns_after_dashes,
    towns_before_countries,
)
from deid_crf.deid.recognizers.population_groups import find_civil_status, find_population_groups
from deid_crf.deid.recognizers.postcodes import find_postcodes
from deid_crf.deid.recognizers.relatives import is_relatives_name, relatives
from deid_crf.deid.recognizers.repeats import defined_acronyms, propagate_places
from deid_crf.deid.recognizers.roads import find_road_points
from deid_crf.deid.recognizers.sex import SEX, find_labelled_sex, find_sex_in_field_rows, sexes_after_ages
from deid_crf.deid.recognizers.signatures import entry_initials, entry_signatures, signature_legends, staff_initials
from deid_crf.deid.recognizers.streets import find_streets
from deid_crf.deid.recognizers.table_columns import RELATIVE, find_table_values
from deid_crf.deid.recognizers.vehicles import VEHICLE_ID, find_vehicle_ids
from deid_crf.deid.recognizers.work import (
    LEGAL_FORM,
    PROFESSION,
    employers_after_jobs,
    employers_named_after_work,
    find_companies,
    find_employers,
    find_professions,
    professions_in_apposition,
    professions_with_their_complement,
)
from deid_crf.gazetteers.spanish import INSTITUTION_WORDS, PARTICLES, SPECIALTY_WORDS, normalize
from deid_crf.text.spans import CANDIDATE, OFF, PRIORITIES, PROPAGATED, RULE, RULES_FIRST, UNION, PHISpan, combine

__all__ = [
    "DEFAULT_OTHER",
    "DEFAULT_PRIORITY",
    "NAME_TYPES",
    "RECOGNIZERS",
    "RULE_MODES",
    "Recognizer",
    "RuleLayer",
    "dni_letter",
    "find_bank_accounts",
    "find_cif",
    "find_collegiate",
    "find_dates",
    "find_dni",
    "find_emails",
    "find_health_areas",
    "find_institutions",
    "find_ips",
    "find_labelled_ids",
    "find_nass",
    "find_neighbourhoods",
    "find_phones",
    "find_postcodes",
    "find_urls",
    "nass_is_valid",
    "propagate_names",
    "propagate_places",
    "rule_layer",
]


def _within_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut at its line breaks and tabs into non-empty pieces without
    surrounding spaces (the recognizers' patterns never cross a line; this is the
    guarantee for any pattern that would, and keeps BRAT's tab out of spans)."""
    pieces, cursor = [], start
    for cut in [*(m.start() for m in SPAN_BREAKS.finditer(text, start, end)), end]:
        a, b = cursor, cut
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            pieces.append((a, b))
        cursor = cut + 1
    return pieces


@dataclass(frozen=True)
class Recognizer:
    name: str
    types: tuple[str, ...]
    find: Callable[[str], Iterator[Match]]
    description: str


RECOGNIZERS: dict[str, Recognizer] = {
    r.name: r
    for r in (
        Recognizer("email", (EMAIL,), find_emails, "e-mail addresses"),
        Recognizer("url", (URL, PROTOCOL_ADDRESS), find_urls, "www. addresses; https://, ftp:// ones"),
        Recognizer("ip", (DEVICE_ID,), find_ips, "IPv4, IPv6 and MAC addresses"),
        Recognizer("phone", (PHONE, FAX), find_phones, "phone/fax/pager numbers (phonenumbers), labelled or grouped"),
        Recognizer("postcode", (TERRITORY,), find_postcodes, "postal codes after CP or between address and town"),
        Recognizer("dni", (PATIENT_ID,), find_dni, "DNI/NIE with a valid check letter"),
        Recognizer("cif", (OTHER_ID,), find_cif, "company CIF with a valid check, after a CIF label"),
        Recognizer("bank", (OTHER_SUBJECT,), find_bank_accounts, "IBAN and bank accounts"),
        Recognizer("nass", (INSURANCE_ID,), find_nass, "social-security numbers (check digits or NASS label)"),
        Recognizer("collegiate", (COLLEGIATE_ID,), find_collegiate, "collegiate NN NN NNNNN"),
        Recognizer(
            "sample_code",
            (CONTACT_ID,),
            find_sample_codes,
            "a sample's or a study's code: Cultivo de esputo (MB26-119034)",
        ),
        Recognizer(
            "labelled_ids",
            (
                PATIENT_ID,
                INSURANCE_ID,
                CONTACT_ID,
                COLLEGIATE_ID,
                EMPLOYEE_ID,
                OTHER_ID,
                DEVICE_ID,
                OTHER_SUBJECT,
                BIOMETRIC_ID,
            ),
            find_labelled_ids,
            "values of NHC/CIP/NASS/episodio/col./empleado/serie/expediente… labels",
        ),
        Recognizer(
            "biometric", (BIOMETRIC_ID,), find_biometric_codes, "the code after huella dactilar, firma biométrica…"
        ),
        Recognizer("date", (DATE,), find_dates, "numeric, ISO, Roman-month and written dates"),
        Recognizer(
            "dictated_number",
            (PATIENT_ID, INSURANCE_ID, PHONE, COLLEGIATE_ID, OTHER_SUBJECT),
            find_dictated_numbers,
            "a number dictated in words after its label: historia número uno cuatro siete …",
        ),
        Recognizer("institution", (INSTITUTION,), find_institutions, "health services, national bodies, town councils"),
        Recognizer(
            "health_area", (INSTITUTION,), find_health_areas, "a header's health area or management, its places with it"
        ),
        Recognizer("hospital_acronym", (HOSPITAL,), find_hospital_acronyms, "hospital acronyms alone: del HUCA"),
        Recognizer(
            "hospital_after_service",
            (HOSPITAL,),
            find_hospitals_after_services,
            "a hospital's acronym after a specialty: Oftalmología del HMO",
        ),
        Recognizer(
            "foreign_hospital", (HOSPITAL,), find_foreign_hospitals, "a hospital abroad: Ospedale …, … lasarett"
        ),
        Recognizer("hospital_kind", (HOSPITAL,), find_hospital_kinds, "a hospital's kind alone: del Clínico"),
        Recognizer(
            "hospital_short_name", (HOSPITAL,), find_hospital_short_names, "a hospital's short name: de Valdecilla"
        ),
        Recognizer("neighbourhood", (TERRITORY,), find_neighbourhoods, "the name after barrio de, del or de la"),
        Recognizer("home_place", (COUNTRY, TERRITORY), find_home_places, "the place after natural de, reside en…"),
        Recognizer(
            "profession", (PROFESSION,), find_professions, "the job after trabaja como, de profesión, Profesión:…"
        ),
        Recognizer("company", (OTHER_SUBJECT,), find_companies, "a company by its legal form: … S.L., … SA.U."),
        Recognizer("employer", (OTHER_SUBJECT,), find_employers, "the name after a workplace: la fábrica de …"),
        Recognizer("tattoo", (OTHER_SUBJECT,), find_tattoos, "a described tattoo: tatuaje de un ancla en la muñeca"),
        Recognizer(
            "population_group", (PATIENT_ID,), find_population_groups, "religion, orientation: testigo de Jehová"
        ),
        Recognizer("civil_status", (PATIENT_ID,), find_civil_status, "the patient's civil status: soltera, es viudo"),
        Recognizer("vehicle", (VEHICLE_ID,), find_vehicle_ids, "number plates and VINs after matrícula, bastidor…"),
        Recognizer("staff_field", (STAFF,), find_labelled_staff, "the name in a Médico:/Responsable clínico: field"),
        Recognizer(
            "patient_field",
            ("NOMBRE_SUJETO_ASISTENCIA",),
            find_labelled_patients,
            "the name in a Paciente:/Nome:/Pacient: field",
        ),
        Recognizer(
            "lower_case_name",
            ("NOMBRE_SUJETO_ASISTENCIA", STAFF, RELATIVE),
            find_lower_case_names,
            "names in lower case in a note in lower case: la enfermera montse, su mujer, graciela,",
        ),
        Recognizer(
            "called_name",
            ("NOMBRE_SUJETO_ASISTENCIA",),
            find_called_names,
            "the name someone is called by: la llaman «Bego», prefiere que la llamen Yan",
        ),
        Recognizer("young_age", (AGE,), find_young_ages, "ages in hours to months: Niña de 3 días, 60 h de vida"),
        Recognizer("labelled_sex", (SEX,), find_labelled_sex, "the value of Sexo:, Sexe:, Sexua: fields"),
        Recognizer("sex_field", (SEX,), find_sex_in_field_rows, "a sex alone between a header's fields: · H ·"),
        Recognizer("age_in_words", (AGE,), find_ages_in_words, "an age in words: varón de setenta y dos años"),
        Recognizer("labelled_age", (AGE,), find_labelled_ages, "the number after Edad:, Edat:, Idade:, Adina:"),
        Recognizer("road_point", (STREET,), find_road_points, "a road with its kilometre point: Ctra. A-319, km 4"),
        Recognizer(
            "foreign_address",
            (STREET, TERRITORY),
            find_foreign_addresses,
            "a foreign home address: Dom. habitual: Storgatan 14 B, 252 25 Helsingborg (Suecia)",
        ),
        Recognizer("street", (STREET,), find_streets, "a street type, name and house number: C/ Mayor 3, 2º izda"),
        Recognizer(
            "table_column",
            ("NOMBRE_SUJETO_ASISTENCIA", RELATIVE, STAFF, AGE, SEX, PATIENT_ID),
            find_table_values,
            "values under a table header: PACIENTE, EDAD/S, NHC, ENF…",
        ),
    )
}

# Chosen per type on MEDDOCAN dev by `python -m deid_crf.experiments.rules_table` (docs/results.md).
# Types not listed here take DEFAULT_OTHER. The record and insurance numbers' rules
# first too: MEDDOCAN dev is the same under either, and on the notes the model runs a
# number's span over its label (``NASS 07 1047 2283 19`` as a phone, ``CIPNA 1000638274``
# as a name), which a union then types by the model's longer span. The sex field's rules
# first too (the stop after 3afdd09): the model reads a bilingual field's values as a street
# (``Sexo: Emakumea / Mujer``, ``IDADE/SEXO .... 76 anos / Muller``); MEDDOCAN dev's output is
# the same under either, the notes' dev3 gains those 3 spans. (The age's rules first lost
# spans on four guide splits.)
DEFAULT_PRIORITY: dict[str, str] = {t: UNION for r in RECOGNIZERS.values() for t in r.types} | {
    t: RULES_FIRST for t in (PHONE, FAX, DATE, TERRITORY, INSTITUTION, PATIENT_ID, INSURANCE_ID, SEX)
}
DEFAULT_OTHER = UNION


# Name spans whose strings are searched again in the rest of their document.
NOT_NAME_WORDS = frozenset(normalize(w) for w in (*SPECIALTY_WORDS, *INSTITUTION_WORDS))


def propagate_names(
    text: str,
    spans: Sequence[PHISpan],
    types: Sequence[str] = NAME_TYPES,
    known: Iterable[tuple[str, str, float]] = (),
) -> list[PHISpan]:
    """``spans`` plus the other occurrences, in the same document, of the names they
    found: the whole name and each capitalised part of 3+ letters ("Ernesto Rivera
    Bueno" found once, then "Sr. Rivera" later), each part of 4+ letters of a name in
    lower case, capitalised ("xosé antonio …", then "Xosé"). An occurrence is added with the
    type and confidence of its name unless it overlaps a span already there; where the
    spans it overlaps are names of ``types`` that lie inside it (the model found "José
    Crestanello" of a "José Crestanello Nese" it found whole elsewhere), they are
    widened to it, keeping the first one's type.
    ``known`` adds names found elsewhere, ``(string, type, confidence)`` (the other
    documents of a patient group), after the document's own. A relative's span that is
    a name alone (``Maite``, ``Maria da Graça``; not ``su madre``) is propagated too, as a
    relative's, when ``types`` holds the default name types."""
    names: dict[str, PHISpan] = {}
    found = [(text[s.start : s.end], s) for s in spans if s.type in types]
    if types == NAME_TYPES:
        found += [(name, s) for s in spans if s.type == RELATIVE and is_relatives_name(name := text[s.start : s.end])]
    found += [(name, PHISpan(0, 0, type_, confidence)) for name, type_, confidence in known if name and type_ in types]
    for whole, span in found:
        names.setdefault(whole, span)
        if whole.islower():
            # a name written in lower case ("Paciente: xosé antonio outeiro rúa") is
            # capitalised in the text ("Xosé refiere…"): its parts of 4+ letters, so
            for part in re.findall(r"[^\W\d_]{4,}", whole):
                if normalize(part) not in NOT_NAME_WORDS:
                    names.setdefault(part[0].upper() + part[1:], span)
        for part in re.findall(r"[^\W\d_]+", whole):
            if len(part) >= 3 and part[0].isupper() and part.lower() not in PARTICLES:
                names.setdefault(part, span)
                if part.isupper() and normalize(part) not in NOT_NAME_WORDS:
                    # a header's "NDIAYE SARR, AWA" is "Awa" in the text (a header's
                    # "MEDICINA INTERNA" the model took for a name is a department's)
                    names.setdefault(part[0] + part[1:].lower(), span)
                elif len(part) >= 4 and normalize(part) not in NOT_NAME_WORDS:
                    # and the other way: a letter's "Sra. Dobre" is "DOBRE, FLORENTINA" on
                    # its tear-off stub
                    names.setdefault(part.upper(), span)
    if not names:
        return list(spans)
    out = sorted(spans)
    starts = [s.start for s in out]
    reach = list(accumulate((s.end for s in out), max))  # furthest end of out[: i + 1]
    widened: set[int] = set()  # indices in ``out`` replaced by a wider name
    added = []
    for start, end in _name_occurrences(text, names):
        first, last = bisect_left(starts, start), bisect_left(starts, end)
        overlapping = list(range(first, last))
        j = first - 1
        while j >= 0 and reach[j] > start:  # spans that open before the name and reach into it
            if out[j].end > start:
                overlapping.insert(0, j)
            j -= 1
        inside = [out[k] for k in overlapping]
        if not inside:
            name = names[text[start:end]]
            added.append(
                PHISpan(start, end, name.type, name.confidence, PROPAGATED, min_confidence=name.min_confidence)
            )
        elif (min(s.start for s in inside), max(s.end for s in inside)) == (start, end):
            continue  # already covered, as where the name was found
        elif all(s.type in types and start <= s.start and s.end <= end for s in inside):
            widened.update(overlapping)
            kept = min(inside)
            added.append(
                PHISpan(start, end, kept.type, kept.confidence, PROPAGATED, min_confidence=kept.min_confidence)
            )
    return sorted([s for i, s in enumerate(out) if i not in widened] + added)


_WORD = re.compile(r"\w")
_END = ""  # marks, in the trie of names, a node where a name ends


def _name_occurrences(text: str, names: Iterable[str]) -> Iterator[tuple[int, int]]:
    r"""``(start, end)`` of the occurrences of ``names`` in ``text`` that neither begin
    nor end inside a word, scanning left to right: at each place the longest name
    wins and the scan goes on after it (what ``re.finditer`` over
    ``(?<!\w)(?:longest|…|shortest)(?!\w)`` finds). A trie of the names is walked
    from each word start that opens one, so the cost does not grow with their number."""
    trie: dict[str, dict] = {}
    for name in names:
        node = trie
        for char in name:
            node = node.setdefault(char, {})
        node[_END] = {}
    openers = "".join(sorted(c for c in trie if c != _END))
    if not openers:
        return
    n, resume = len(text), 0
    for m in re.finditer(f"(?<!\\w)[{re.escape(openers)}]", text):
        start = m.start()
        if start < resume:
            continue
        node, i, end = trie, start, 0
        while i < n and (node := node.get(text[i])) is not None:
            i += 1
            if _END in node and not _WORD.match(text, i):
                end = i
        if end:
            yield start, end
            resume = end


@dataclass
class RuleLayer:
    """Runs the recognizers and merges their spans with the model's.

    ``priority`` is one of :data:`~deid_crf.text.spans.PRIORITIES` for every type, or a
    mapping type → priority (types it does not list get ``default``).

    A user's configuration (:mod:`deid_crf.deid.user_config`) adds: ``extra``
    recognizers, run and merged with the registered ones under the same priorities
    (``union`` for a type whose priority is ``off``, so that they also run with the
    rules off); ``deny`` recognizers, whose spans win over every other
    (``rules`` priority); ``thresholds``, the lowest confidence of a model span per
    type; and ``allow``, ``(type, text) -> bool``, which drops the spans it accepts
    (after name propagation, so that an allowed word is never propagated either).
    """

    priority: Mapping[str, str] | str = field(default_factory=lambda: dict(DEFAULT_PRIORITY))
    default: str = DEFAULT_OTHER
    recognizers: Sequence[str] = tuple(RECOGNIZERS)
    propagate: bool = True
    extra: Sequence[Recognizer] = ()
    deny: Sequence[Recognizer] = ()
    thresholds: Mapping[str, float] = field(default_factory=dict)
    allow: Callable[[str, str], bool] | None = None

    def __post_init__(self) -> None:
        unknown = [name for name in self.recognizers if name not in RECOGNIZERS]
        if unknown:
            raise ValueError(f"unknown recognizers {unknown}; known: {sorted(RECOGNIZERS)}")
        values = [self.priority] if isinstance(self.priority, str) else list(self.priority.values())
        for value in [*values, self.default]:
            if value not in PRIORITIES:
                raise ValueError(f"unknown rule priority {value!r}; choose from {PRIORITIES}")

    @property
    def active(self) -> bool:
        if isinstance(self.priority, str):
            return self.priority != OFF
        return self.default != OFF or any(v != OFF for v in self.priority.values())

    def find(self, text: str) -> list[PHISpan]:
        """Every recognizer's spans (they may overlap one another), none across a
        line break or a tab: the registered ones' when the layer is active, and the
        ``extra`` ones'."""
        recognizers = [RECOGNIZERS[name] for name in self.recognizers] if self.active else []
        return _spans_of([*recognizers, *self.extra], text)

    def _priority(self) -> Mapping[str, str] | str:
        """:attr:`priority`, with ``union`` for the ``extra`` recognizers' types it turns off."""
        if not self.extra:
            return self.priority
        types = {t for r in self.extra for t in r.types}
        policy = (
            (lambda t: self.priority)
            if isinstance(self.priority, str)
            else (
                lambda t: self.priority.get(t, self.default)  # type: ignore[union-attr]
            )
        )
        return {t: policy(t) for t in types | set(DEFAULT_PRIORITY)} | {t: UNION for t in types if policy(t) == OFF}

    def apply(self, text: str, model_spans: Sequence[PHISpan]) -> list[PHISpan]:
        """The model's spans merged with the rules' (sorted, never overlapping)."""
        if self.thresholds:  # NaN (confidence not computed) is never below a threshold
            model_spans = [s for s in model_spans if not s.confidence < self.thresholds.get(s.type, 0.0)]
        if self.active or self.extra:
            default = self.default if self.active else OFF
            spans = combine(model_spans, self.find(text), text, self._priority(), default)
        else:
            spans = list(model_spans)
        if self.active:
            spans = labels_cut_from_ids(text, spans)
            spans = areas_with_their_place(text, names_over_elisions(text, organisations(text, spans)))
            spans = hospitals_without_their_town(text, spans)
            spans = places_in_datelines(text, towns_after_countries(text, places_by_name(text, spans)))
            spans = towns_after_dashes(text, spans)
            spans = streets_with_their_estates(text, street_tails(text, towns_before_countries(text, spans)))
            spans = other_names_of_places(text, joined_places(text, split_at_slashes(text, spans)))
            spans = newborns_mothers(text, hyphenated_names(text, without_titles(text, spans)))
            spans = given_names_after_comma(text, roles_from_labels(text, initials_before_names(text, spans)))
            spans = surnames_before_given_names(text, spans)
            spans = entry_signatures(text, titled_staff(text, spans))
            spans = staff_numbers_after_names(
                text, staff_initials(text, signature_legends(text, entry_initials(text, spans)))
            )
            spans = staff_before_their_numbers(text, spans)
            spans = nicknames_after_names(text, completed_names(text, relatives(text, spans)))
            spans = patient_named_everywhere(text, patients_before_their_age(text, spans))
            spans = relatives_national_ids(text, spans)
            spans = employers_named_after_work(text, employers_after_jobs(text, professions_in_apposition(text, spans)))
            spans = ages_before_their_unit(text, professions_with_their_complement(text, spans))
            spans = ages_after_patient_names(text, stated_ages(text, durations_not_ages(text, spans)))
            spans = dates_with_their_year(text, sexes_after_ages(text, ages_with_their_months(text, spans)))
            spans = ids_with_their_letters(text, dates_with_their_basque_weekday(text, spans))
            spans = [s for s in map(partial(_tidy_edges, text), spans) if not is_no_entity(text, s)]
            # (after the edges are tidied: a span cut at a wide gap may leave a name bare)
            spans = staff_named_before_their_numbers(text, spans)
        if self.deny:
            spans = combine(spans, _spans_of(self.deny, text), text, RULES_FIRST)
        if self.propagate:
            spans = propagate_places(text, defined_acronyms(text, propagate_names(text, spans)))
            # (a name or an acronym found again where it is a field's label: "Col. 4614982")
            spans = [s for s in spans if s.source != PROPAGATED or not is_field_label(text[s.start : s.end])]
        else:
            spans = sorted(spans)
        if self.allow is not None:
            spans = [s for s in spans if not self.allow(s.type, text[s.start : s.end])]
        return spans


# A wide gap (three spaces or a tab) separates a form's fields, and a comma, a semicolon
# or a colon ends a value: no entity holds one (MEDDOCAN train and dev: no span with a
# gap, one ending in a comma), but the model runs a value on over them ("Schmidt
# Nombre", "68    F", "c/ Predicadores, 48, 3.º izda,").
_FIELD_GAP = re.compile(r"[ ]{3,}|\t")
_END_PUNCTUATION = ",;:"


# The ordinal sign of a number sign ("n.º"), which the tokenizer may leave to the number.
_LEADING_ORDINAL_SIGN = re.compile(r"[º°ª][ \t]*(?=\w)")


def _tidy_edges(text: str, span: PHISpan) -> PHISpan:
    """``span`` cut before a wide gap inside it, and without punctuation, a function word,
    an age unit's abbreviation dot or the dot of a name's last initial that ends it, or a
    lower-case preposition that opens it."""
    end = span.end
    if gap := _FIELD_GAP.search(text, span.start, end):
        end = gap.start()
    if span.type in _ORGANISATIONS and (run_on := _ORGANISATION_RUNS_ON.search(text, span.start, end)):
        end = run_on.start()
    if span.type in _ORGANISATIONS and (form := _LEGAL_FORM.search(text, span.start, end)) and form.end() < end:
        stop = text[form.end()] in ".;," or (text[form.end() - 1] == "." and text[form.end()].isspace())
        # (a name in the tail would be left bare: "SA, en el puerto de El Musel" stays whole)
        if stop and not _CAPITAL_AFTER_OPENING.search(text, form.end(), end):
            end = form.end()  # "Distribuciones Hamed Mimun SL; cruza la frontera": the company ends at its form
    while end > span.start + 1 and (text[end - 1] in _END_PUNCTUATION or text[end - 1].isspace()):
        end -= 1
    while (tail := _TRAILING_FUNCTION_WORD.search(text, span.start, end)) and tail.start() > span.start:
        end = tail.start()
    if span.type == STREET and (run_on := _STREET_RUNS_ON.search(text, span.start, end)):
        end = run_on.start()  # after the function word: "…, barrio del"
    person = span.type in NAME_TYPES or span.type == RELATIVE
    if person and (title := _TRAILING_TITLE.search(text, span.start, end)) and title.start() > span.start:
        end = title.start()  # "su hija Dña. Inmaculada …": the title opens the next name
    start = span.start
    if not person:
        while (head := _LEADING_PREPOSITION.match(text, start, end)) and head.end() < end:
            start = head.end()
    if (sign := _LEADING_ORDINAL_SIGN.match(text, start, end)) and sign.end() < end:
        start = sign.end()  # "n.º 26M-08817": the number sign's "º" is no part of the number
    if span.type in _PLACES and (head := _LEADING_ARTICLE.match(text, start, end)) and head.end() < end:
        start = head.end()  # "el Valle del Jiu": a place's article in lower case is no part of its name
    if span.type == INSTITUTION and (honorific := _HONORIFIC_BEFORE.search(text, max(0, start - 12), start)):
        start = honorific.start()  # "Ilustre Colegio Oficial de Médicos de …": the title is the body's name
    if span.type == DATE and (day := _DAY_WORD_BEFORE_NUMBER.fullmatch(text, start, end)):
        start = day.start("day")  # "el día 20": the number is the date
    if span.type == AGE and _AGE_ABBREVIATION_DOT.search(text, span.start, end):
        end -= 1
    elif span.type == AGE and text[start:end].isdigit() and (unit := _AGE_LETTER_AFTER.match(text, end)):
        end = unit.end()  # "68 a / M": the unit's letter is the age's
    elif span.type in NAME_TYPES and _FINAL_INITIAL_DOT.search(text[span.start : end]):
        end -= 1
    if span.type == STREET and _BASQUE_SIDE.search(text, span.start, end) and _ABBREVIATION_DOT.match(text, end):
        end += 1  # "Kale Nagusia 12, 3. ezk.,": the Basque side's abbreviation keeps its dot
    if span.type in (PATIENT_ID, OTHER_ID) and _DNI_DIGITS.fullmatch(text, start, end):
        if letter := _DNI_LETTER_AFTER.match(text, end):
            end = letter.end()  # "45318872-H": the letter is the DNI's, whatever its check says
    if end == span.end and start == span.start:
        return span
    # A recall-first candidate stays one (its source says it is off the best path).
    return replace(span, start=start, end=end, source=span.source if span.source == CANDIDATE else RULE)


# An organisation's span that runs on into the sentence: over "por" ("Centro de Salud
# Albayzín por la matrona …"), a weekday's "los"/"el" ("Hogar del Mayor de La Bañeza los
# martes") or the first day of a stay ("Residencia … de Almadén del 16 al 27 de febrero").
# No organisation span of MEDDOCAN train and dev or of the notes' guide splits holds any
# ("para" they do: "Asociación para Evitar la Ceguera en México").
_ORGANISATIONS = frozenset(("INSTITUCION", "HOSPITAL", "CENTRO_SALUD", "OTROS_SUJETO_ASISTENCIA"))
# A company's legal form ends its name: an organisation's span that goes on after it over
# a stop, a semicolon or a comma ran into the sentence (the guide splits 4; MEDDOCAN train
# and dev: no organisation span goes on after one).
_LEGAL_FORM = re.compile(rf"(?<![^\W_]){LEGAL_FORM.replace('{SP}', SP)}(?![^\W_])")
_CAPITAL_AFTER_OPENING = re.compile(r"(?<![.;,]\s)(?<![.;,])(?<![^\W_])[A-ZÁÉÍÓÚÑ]")
_ORGANISATION_RUNS_ON = re.compile(
    rf"{SP}+(?:por{SP}|(?:(?:los|el){SP}+)?(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bados?|domingos?)(?!\w)"
    rf"|del{SP}+\d)"
)


# A street's span that runs on into the next part of the address, its neighbourhood's
# generic word ("c/ General Villalba, 31, 2.º, barrio del Real"), or into where on the road
# ("A-332, p.k. 9, a la altura de San Juan de los Terreros"): no CALLE span of MEDDOCAN
# train and dev ends so or holds that.
_STREET_RUNS_ON = re.compile(
    rf",{SP}*(?i:barrio|barriada|bº|urbanización|urb\.?)$|,{SP}*a{SP}+la{SP}+altura{SP}+de(?!\w)"
)


# A Basque address's floor side abbreviated (``3. ezk.`` ezkerra, left; ``2. esk.`` eskuina,
# right): the notes keep its dot inside the CALLE span (the guide splits 3 of 4; MEDDOCAN has
# no Basque address), as a Spanish one's `izq.` is not (MEDDOCAN 25 of 34 leave it out).
_BASQUE_SIDE = re.compile(r"\d\.?[ \t]*(?:ezk|esk)$")
# (a dot before a comma, a bracket or the line's end; before a dash it ends the sentence:
# "3. ezk. — 20800 Zarautz", the notes' dev half)
_ABBREVIATION_DOT = re.compile(r"\.(?=[,;)]|[ \t]*$)", re.MULTILINE)


# A professional body's honorific title right before the body's span the model found
# (``Ilustre Colegio Oficial de Médicos de Cáceres``, Catalan ``Il·lustre Col·legi``): part of
# its name, as the guide splits write it 4 of 5 (MEDDOCAN has none).
_HONORIFIC_BEFORE = re.compile(r"(?<![^\W_])(?:Ilustre|ILUSTRE|Il·lustre|IL·LUSTRE|Il\.lustre)[ \t]+\Z")


# The word "día" before a day's number alone (``el día 20``, ``el mismo día 15``): the notes
# annotate the number (the guide splits 15 of 16); no FECHAS span of MEDDOCAN train and dev
# opens with the word (it leaves its treatment-day counts, ``el día 6 post-intoxicación``,
# unannotated; what the model tags so is a date by the notes' rule).
_DAY_WORD_BEFORE_NUMBER = re.compile(r"(?i:d[ií]a)[ \t]+(?P<day>\d{1,2})")


# The dot of an age's abbreviated unit ("81 a.", "51 a."): the notes leave it out, and no
# MEDDOCAN age span ends in one ("27 a").
_AGE_ABBREVIATION_DOT = re.compile(r"\d\s*a\.$")
# The letter of an age's abbreviated unit after the number the model tagged (``| 68 a / M |``):
# inside the span, as MEDDOCAN train writes ``35 A`` (5 of 5 spans but an interval's ``de los 12
# a los 16``) and the notes 68 of 68; not a preposition before a word or a number (``12 a los 16``, ``68 a 70 kg``).
_AGE_LETTER_AFTER = re.compile(r"[ ]?[aA](?![\w.])(?![ \t]+[a-zñáéíóú\d])|[ ]?[aA](?=\.)")
# The dot after a name's last initial ("Paciente: L. Á. M.", "Casas A."): MEDDOCAN train and
# dev and the notes leave it out (2 and 2 such names), and no span of theirs ends in one.
# A DNI's eight digits and its letter after a hyphen (MEDDOCAN train and dev: no ID span of
# seven or eight digits has a hyphen and a letter after it; the model stops before them).
_DNI_DIGITS = re.compile(r"\d{1,2}\.?\d{3}\.?\d{3}")
_DNI_LETTER_AFTER = re.compile(r"-[A-Z](?![^\W_])")
_FINAL_INITIAL_DOT = re.compile(r"(?:^|[\s.])[A-ZÁÉÍÓÚÑ]\.$")


# A courtesy title that ends a person's or a relative's span ("hija Dña"): MEDDOCAN train
# and dev and the guide splits have none (their spans ending "D" are streets' doors).
_TRAILING_TITLE = re.compile(r"\s+(?:Dña|Dª|Doña|Sr|Sra|Srta|Dr|Dra)\.?$")


# A lower-case preposition that opens a span ("de Fundación Secretariado Gitano"): no span
# of MEDDOCAN train and dev opens with one, nor any of the guide splits but a surname
# ("de la Cruz", a name's: names and relatives are left alone).
_LEADING_PREPOSITION = re.compile(r"(?:de|del|en|por|a|al|con)[ \t]+")


# A lower-case article that opens a place's span (``en el Valle del Jiu`` → ``Valle del
# Jiu``): MEDDOCAN train and dev have no TERRITORIO or PAIS span opening with one; a name
# whose article is its own is capitalised (``La Rioja``, ``El Ejido``).
_PLACES = frozenset((TERRITORY, COUNTRY))
_LEADING_ARTICLE = re.compile(r"(?:el|la|los|las)[ \t]+(?=[A-ZÁÉÍÓÚÑÜ])")


# A lower-case preposition, article or possessive that ends a span ("trabajadora social de
# su", "barrio de", "mediadora intercultural de"): the model ran on into the next phrase.
# MEDDOCAN train and dev: no span ends in one (a street's "2 A" is a capital), nor any of
# the notes' spans.
_TRAILING_FUNCTION_WORD = re.compile(
    r"\s+(?:de|del|su|sus|la|el|los|las|en|y|que|al|con|por|para"
    # and a conjunction or a preposition of time ("usuaria nº FB-0932 desde la Diada")
    r"|desde|hasta|durante|cuando|pero|porque|aunque|donde|mientras"
    # and their Catalan and Galician kin ("el Dr. Vilanova per telèfon", "coa filla")
    r"|per|pel|pels|amb|quan|coa|co|polo|pola|cando|mentres)$"
)


def _spans_of(recognizers: Iterable[Recognizer], text: str) -> list[PHISpan]:
    spans = {
        (a, b, type_)
        for recognizer in recognizers
        for start, end, type_ in recognizer.find(text)
        for a, b in _within_lines(text, start, end)
    }
    return [PHISpan(start, end, type_, 1.0, RULE) for start, end, type_ in sorted(spans)]


def rule_layer(mode: str, propagate: bool | None = None) -> RuleLayer:
    """``default`` (the shipped per-type priorities), or one priority for all types;
    name propagation follows ``propagate``, and when it is None is on for every mode
    but ``off`` (``rule_layer("off", propagate=True)``: the model and propagation)."""
    if mode != "default" and mode not in PRIORITIES:
        raise ValueError(f"unknown rule mode {mode!r}; choose from default, {', '.join(PRIORITIES)}")
    propagate = (mode != OFF) if propagate is None else propagate
    if mode == "default":
        return RuleLayer(propagate=propagate)
    return RuleLayer(priority=mode, default=mode, propagate=propagate)


RULE_MODES = ("default", *PRIORITIES)


def prepare() -> None:
    """Build now what the recognizers build on first use (their longest patterns, the
    country and occupation tables): worker processes forked after this share them
    instead of each building them again, about 0.1 s of a core per worker. The
    patterns come from the kept ones (:mod:`deid_crf.io.pattern_cache`)."""
    from deid_crf.deid.recognizers import addresses, institutions, lower_case_names, phones, places, work
    from deid_crf.io.pattern_cache import kept_compiles

    builders = (
        institutions._body,
        institutions._organisation,
        institutions._health_centre,
        institutions._regions,
        institutions.listed_body_keys,
        institutions.municipalities,
        places._countries,
        places._countries_by_first_word,
        places._country_acronyms,
        places._regions_by_first_word,
        places._towns_by_first_word,
        addresses._towns,
        work.occupation_words,
        phones._shortest_national_number,
        lower_case_names.clinical_words,
    )
    with kept_compiles():
        for build in builders:
            build()
