"""The simulated control plane: nodes and their kubelets, a scheduler, and the controllers.

Entry point: ``controlplane.build_control_plane`` (what runs, from ``--nodes``,
``--node-config`` and ``--controllers``). Nodes are registered by ``nodes``; ``scheduler``
binds pods (its cache of bound pods in ``nodeinfo``, the view one attempt sees in
``placement``, which nodes an attempt tries in ``feasible``, filters in ``scheduling``,
``topologyspread`` and ``interpod``);
``kubelet`` runs them (statuses in ``podstatus``, sent by ``statusmanager``,
``kubeforge.dev/`` behaviours in ``behaviour``); kube-controller-manager's controllers
each have a module (``namespaces``, ``garbage``, ``serviceaccounts``, ...). Per-object
loops share ``loop.KeyedLoop`` (each names the resources it hears and how their events
map to its keys in one table, ``key_mappers``); reads go through ``cluster.Cluster``,
the controllers' writes (the scheduler's and kubelets' too) through
``requests.ControllerRequests``: API requests as the controller's user (``admitting``)
that the admission webhooks and policies see, awaited without blocking the server
(syncs are coroutines, run ``eager``-ly).

May import: the kinds' layer and what is below it; never ``endpoints`` or ``admission``
(the server hands the admission chain in as ``admitting.Admitting``).
"""
