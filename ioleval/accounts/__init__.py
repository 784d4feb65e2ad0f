"""Accounts of jurors, chairs and organizers, managed by organizers inside the app."""
