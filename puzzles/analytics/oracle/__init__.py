"""The oracle ensemble (issue 12, item 4): pure rule in ..stats.oracle; here its reads, its
one write, its page and exports."""
