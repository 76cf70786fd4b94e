"""Feature gates: Premium features with one free trial each (feet, hands, personality)."""
