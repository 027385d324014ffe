"""Registered env classes: thin, documented subclasses of :class:`patience_gym.env.PatienceEnv`."""
