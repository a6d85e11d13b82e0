"""One check run: checks over a source, the analysis cache, inline allows, hosts and fleets.

May import ``names``, ``sources``, ``analysis``, ``config`` and ``core``; never a front end
or a report format.
"""
