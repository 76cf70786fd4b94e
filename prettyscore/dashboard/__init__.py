"""The members' dashboard: Overview, My Photos, Personality and Premium tabs."""
