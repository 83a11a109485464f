"""Serve a notebook as a page with Voilà, with the suite's server options in one place.

``make play``, ``make session`` and the browser tests all start Voilà through this module::

    python -m nothanks.ui.serve notebooks/08_lab_session.ipynb --port=8866

It runs Voilà with :data:`SERVER_OPTIONS` (localhost only, no code shown, idle kernels
culled) and :func:`set_xsrf_cookie` as its prelaunch hook, then any further arguments
(an option given there replaces the default). Every page load starts a kernel; the page
shuts it down when the tab is closed or reloaded, and the culler removes any the browser
failed to shut down (a crashed browser, a lost connection), so no kernel, and no
participant's session lock held by one, outlives its page.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence

#: Seconds a kernel may sit idle with no page connected before Voilà shuts it down: the
#: backstop for a page whose shutdown request never arrived. A page that is open keeps
#: its kernel however long the participant takes (connected kernels are not culled).
CULL_IDLE_SECONDS = 60
#: How often (seconds) the culler looks for such kernels.
CULL_INTERVAL_SECONDS = 5

#: Voilà's command-line options for every page the suite serves.
SERVER_OPTIONS = (
    "--no-browser",
    "--Voila.ip=127.0.0.1",
    "--strip_sources=True",
    f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_SECONDS}",
    f"--MappingKernelManager.cull_interval={CULL_INTERVAL_SECONDS}",
    "--MappingKernelManager.cull_connected=False",
)


def set_xsrf_cookie(handler, notebook=None, cwd=None) -> None:
    """Voilà prelaunch hook: give the page its ``_xsrf`` cookie before it is sent.

    Voilà's page posts ``/voila/api/shutdown/<kernel>`` when the tab closes or reloads,
    with the ``_xsrf`` value it reads from the page's cookie; but Voilà 0.5 renders the
    page without touching the handler's XSRF token, so the cookie is never set, the
    request is refused (403 '_xsrf' argument missing) and the kernel lives on. Reading
    ``handler.xsrf_token`` here, before the first byte of the page goes out, sets the
    cookie (Tornado does so on first use); the notebook is left unchanged.
    """
    handler.xsrf_token  # noqa: B018 - read for its side effect: it sets the cookie


def voila_argv(arguments: Sequence[str]) -> list[str]:
    """Voilà's arguments: :data:`SERVER_OPTIONS`, less those ``arguments`` set again
    (e.g. ``--MappingKernelManager.cull_idle_timeout=5``), then ``arguments``."""
    given = {argument.split("=", 1)[0] for argument in arguments}
    return [*(option for option in SERVER_OPTIONS if option.split("=", 1)[0] not in given),
            *arguments]


def main(argv: Sequence[str] | None = None) -> None:
    """Run Voilà on the notebook named in ``argv`` (e.g. ``[path, "--port=8866"]``)."""
    from traitlets.config import Config
    from voila.app import Voila

    config = Config()
    config.VoilaConfiguration.prelaunch_hook = set_xsrf_cookie
    arguments = list(sys.argv[1:] if argv is None else argv)
    Voila.launch_instance(argv=voila_argv(arguments), config=config)


if __name__ == "__main__":
    main()
