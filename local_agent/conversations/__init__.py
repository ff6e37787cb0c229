"""Conversations in and out: batch runs and imported chat histories."""
