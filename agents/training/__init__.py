"""Training MaskablePPO agents: the config (:mod:`~agents.training.config`), the networks
(:mod:`~agents.training.networks`), the callbacks, behaviour cloning (:mod:`~agents.training.imitation`),
the run directory, the training envs, the run's report (:mod:`~agents.training.report`) and the experiment
that ties them together (:mod:`agents.training.experiment`; ``train.py`` is its command line)."""
