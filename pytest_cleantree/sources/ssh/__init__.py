"""A tree on another machine, read over SSH (the only package that imports paramiko).

``protocol``: what travels (the agent's source, the request, the records back);
``connection``: paramiko, the ssh config, known hosts, jump hosts, one command;
``sftp``: the fallback for servers that run no commands; ``source``: :class:`SSHSource`.
"""

from pytest_cleantree.sources.ssh.source import SSHSource, open_ssh_source

__all__ = ["SSHSource", "open_ssh_source"]
