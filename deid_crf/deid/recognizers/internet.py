"""E-mail addresses, web addresses, and the IP and MAC addresses of devices.

The types follow the rule texts of the MEDDOCAN guidelines, which do not match what
the type names suggest: an address with a protocol (``https://…``, ``ftp://…``) is
DIREC_PROT_INTERNET (P24.1, examples ``https://www.sample.com``, ``ftp://…``), a
``www.`` address without one is URL_WEB (P25.1, example ``www.sample.com``), and IP and
MAC addresses are IDENTIF_DISPOSITIVOS_NRSERIE (P23.1, "Anotar las direcciones IP, MAC
ADDRESS"). The project's evaluation notes were annotated the same way.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from deid_crf.deid.recognizers.common import DEVICE_ID, EMAIL, PROTOCOL_ADDRESS, URL, Match, finditer_at, is_word_char

_EMAIL = re.compile(r"(?<![\w.+-])[\w][\w.+-]*@[\w-]+(?:\.[\w-]+)*\.[a-zA-Z]{2,}\b")
_URL = re.compile(r"(?<![\w@/])(?:(?P<protocol>(?:https?|ftps?|sftp)://)|www\.)[^\s<>\"'()\[\]]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?"
# Candidates only: ipaddress decides.
_IPV4 = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)")
_IPV6 = re.compile(r"(?<![\w:.])(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){7})[0-9A-Fa-f:]{3,39}(?![\w:])")
_MAC = re.compile(r"(?<![\w:-])[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])")


def _email_starts(text: str) -> list[int]:
    """Where an e-mail address can begin, ascending: an address's name runs over word
    characters and ``. + -`` up to its ``@``, from where the run of them before that
    ``@`` begins (the lookbehind of _EMAIL). Found from each ``@``, so that the pattern
    is not tried at every word of a text (tests/test_rule_prefilters.py)."""
    starts = []
    at = text.find("@")
    while at >= 0:
        start = at
        while start and (is_word_char(text[start - 1]) or text[start - 1] in ".+-"):
            start -= 1
        starts.append(start)  # after the previous @, so ascending
        at = text.find("@", at + 1)
    return starts


def find_emails(text: str) -> Iterator[Match]:
    for m in finditer_at(_EMAIL, text, _email_starts(text)):
        yield m.start(), m.end(), EMAIL


def find_urls(text: str) -> Iterator[Match]:
    """``https://…`` and ``ftp://…`` addresses (DIREC_PROT_INTERNET) and ``www.…`` ones
    (URL_WEB), without the sentence punctuation that may follow them."""
    if "://" not in text and "www." not in text.lower():
        return  # every address holds one or the other (ignoring case); most notes neither
    for m in _URL.finditer(text):
        end = m.end()
        while end > m.start() and text[end - 1] in _URL_TRAILING:
            end -= 1
        yield m.start(), end, PROTOCOL_ADDRESS if m.group("protocol") else URL


def _is_ip(candidate: str) -> bool:
    if ":" in candidate and (len([g for g in candidate.split(":") if g]) < 2 or not re.search(r"\d", candidate)):
        return False  # "::", "abc::" parse as IPv6 but are no address anyone writes
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return False
    return True


# What every match of each pattern holds, found by a scan that skips ahead to a digit,
# hex digit or colon instead of trying the pattern's lookbehind at every character:
# most notes hold none of them, and their pattern is not tried.
_IN_IPV4 = re.compile(r"\d\.\d{1,3}\.")  # "1.2.3.4": a group, a dot, a whole group, a dot
_IN_IPV6 = re.compile(r"::|[0-9A-Fa-f]:[0-9A-Fa-f]")  # "::", or two of its seven "hex:" groups
_IN_MAC = re.compile(r"[0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-]")


def find_ips(text: str) -> Iterator[Match]:
    """IPv4 and IPv6 addresses that :mod:`ipaddress` accepts, and MAC addresses."""
    for pattern, held in ((_IPV4, _IN_IPV4), (_IPV6, _IN_IPV6)):
        if held.search(text):
            for m in pattern.finditer(text):
                if _is_ip(m.group()):
                    yield m.start(), m.end(), DEVICE_ID
    if _IN_MAC.search(text):
        for m in _MAC.finditer(text):
            yield m.start(), m.end(), DEVICE_ID
