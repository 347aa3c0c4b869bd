"""The rule layer's recognizers, one module per kind of PHI.

``internet`` (e-mail, web and IP/MAC addresses), ``phones`` (phonenumbers),
``national_ids`` (stdnum check digits: DNI/NIE, CIF, IBAN, NASS), ``labelled_ids``
(record, card and staff numbers after their label), ``postcodes`` (stdnum postal codes
in an address), ``dates`` and ``institutions`` (health services, national bodies,
town councils). :mod:`deid_crf.deid.rules` registers them and merges
their spans with the model's.
"""
