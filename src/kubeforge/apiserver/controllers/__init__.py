"""The simulated control plane: a node with a kubelet, the namespace finalizer, garbage collection.

Entry points: ``node.NodeSimulator``, ``namespaces.NamespaceFinalizer``,
``garbage.GarbageCollector``, ``serviceaccounts`` (the default ServiceAccount of each
namespace); loops driven by storage events share ``loop.StorageLoop``.

May import: the kinds' layer and what is below it; never ``endpoints`` or ``admission``.
"""
