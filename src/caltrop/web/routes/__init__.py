"""The table server's routes, one module a resource (the full-stack FastAPI template's
``api/routes``): :mod:`.tables` (the library, opening and importing tables, joining a seat),
:mod:`.play` (the view, commands, the log), :mod:`.gm` (the GM's controls), :mod:`.socket`
(``WS /ws``). The browser pages are :mod:`caltrop.web.pages`."""
