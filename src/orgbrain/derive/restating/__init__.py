"""The parts of restating (``derive/restated.py``, the entry point): the units of an
item, the readings of a value, a state and a name restated, the guards that refuse a
pair, and how the pairs kept are recorded."""
