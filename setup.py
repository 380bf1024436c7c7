"""Install: `pip install -e .` (the core), `pip install -e .[export,report]`
(export, comparisons); ./run.sh and ./test.sh install every extra."""

import setuptools

setuptools.setup(
    name='planestrike-rl',
    version='0.1.0',  # Each package's __version__ reads it back.
    license='Apache-2.0',
    description=('Reinforcement-learning agents in JAX (Haiku, RLax, Optax) '
                 'over dm_env games, with TFLite export.'),
    packages=setuptools.find_packages(
        include=['agents', 'agents.*', 'environments', 'environments.*',
                 'networks', 'networks.*', 'experiments', 'experiments.*']),
    # The built-in presets are data files beside their reader.
    package_data={'experiments.presets': ['builtin/*.json']},
    python_requires='>=3.11',
    # The core: train, evaluate and checkpoint every agent on our own games.
    install_requires=[
        'absl-py>=1.4',
        'chex>=0.1.86',
        # Gaussian policies (continuous control); also rlax's dependency.
        'distrax>=0.1.5',
        'dm-env>=1.6',
        'dm-haiku>=0.0.12',
        # The workdir lock (an flock the OS drops when its holder dies).
        'filelock>=3.12',
        # JAX releases for Python 3.11 stop at 0.10.x.
        'jax>=0.4.30,<0.11',
        'jaxlib>=0.4.30,<0.11',
        # AlphaZero's search (Gumbel and PUCT); pure Python over JAX.
        'mctx>=0.0.5',
        'ml-collections>=0.1.1',
        'numpy>=1.26',
        'optax>=0.2.2',
        'orbax-checkpoint>=0.6',
        'rlax>=0.1.6',
        'tensorboardX>=2.6',
        'tqdm>=4.66',
    ],
    # A command that needs a missing extra names its pip line before any
    # work (experiments/setup/extras.py; the suites' adapters).
    extras_require={
        # Export to TFLite (jax2tf + TFLiteConverter) and LiteRT to run and
        # verify the model: --export_tflite (train's default),
        # experiments.export_tflite, experiments.play.
        'export': ['tensorflow-cpu>=2.16,<2.22', 'ai-edge-litert>=1.2'],
        # Comparisons, sweeps and their reports: rliable's intervals,
        # pandas' CSV tables, figures, and TensorBoard to read the logs.
        # rliable's bootstrap (arch < 8) breaks on pandas 3 (deprecate_kwarg).
        'report': ['rliable>=1.0', 'pandas>=1.5,<3', 'matplotlib>=3.7',
                   'tensorboard>=2.16'],
        # Game suites: --env=gymnax:<id>, pgx:, craftax:, xminigrid:, navix:,
        # jumanji: and popgym_arcade: (pure-JAX cores, both loops),
        # --env=bsuite:<id> and --env=gym:<id> (the Python loop). gymnax
        # imports six without declaring it. The navix adapter steps 0.7's
        # Environment._step (navix 4 needs Python 3.12). popgym-arcade
        # stays at 0.0.5, its last release on gymnax: later ones need
        # stable-gymnax, which installs a `gymnax` of its own over gymnax.
        'suites': ['gymnax>=1.0.1', 'six', 'pgx>=2.6', 'bsuite>=0.3.5',
                   'gymnasium>=1.0', 'craftax>=1.5,<2', 'xminigrid>=0.9,<1',
                   'navix>=0.7.4,<0.8', 'jumanji>=1.1,<2',
                   'popgym-arcade==0.0.5'],
        # Continuous control: --env=brax:<name> (a JAX core, both loops) and
        # Gymnasium's MuJoCo tasks (--env=gym:HalfCheetah-v5). The brax
        # adapter reads 0.14's task list and action scaling.
        'control': ['brax>=0.14.2,<0.15', 'mujoco>=3.1', 'gymnasium>=1.0'],
        # EnvPool's engine for the Python loop: --env=envpool:<id> (Atari
        # with its ROMs, MuJoCo, classic control; N environments stepped in
        # one call). About 750 MB installed, with its game assets.
        'envpool': ['envpool>=1.2.5,<2'],
        # pytest-xdist: ./test.sh runs the suite on parallel workers;
        # nbclient and a kernel run examples/quickstart.ipynb as a test.
        'test': ['pytest>=7', 'pytest-xdist>=3.5', 'nbclient>=0.10',
                 'nbformat>=5.9', 'ipykernel>=6.29'],
        # Comparisons on a Ray cluster: experiments.compare --launcher=ray.
        'ray': ['ray>=2.9'],
        # Logging to Weights & Biases: --wandb_project. 0.19.10 is the first
        # with several runs side by side in one process (one per seed).
        'wandb': ['wandb>=0.19.10'],
    },
)
