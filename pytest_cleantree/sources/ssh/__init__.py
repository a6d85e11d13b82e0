"""A tree on another machine, read over SSH (the only package that imports paramiko).

``protocol``: what travels (the agent's modules, the request; the records back are
:mod:`pytest_cleantree.agent.wire`'s); ``connection``: paramiko, the ssh config, known hosts,
jump hosts, one command; two readers over a connection: ``helper`` (the agent, one command a
request) and ``sftp`` (for servers that run no commands); ``source``: :class:`SSHSource`, which
holds the connection and both readers.
"""

from pytest_cleantree.sources.ssh.source import SSHSource, open_ssh_source

__all__ = ["SSHSource", "open_ssh_source"]
