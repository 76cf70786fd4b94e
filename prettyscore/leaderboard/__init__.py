"""The global leaderboard: listed photos in score order, the contest entry, moderation."""
