"""Runs the data-apis array-api-tests suite against webarray and stores JSON reports."""
