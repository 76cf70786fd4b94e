"""Live chat between the parties of an approved contact request."""
