"""A user's pair file read: bytes to text cells with line numbers (``readers``, ``jsonfiles``, ``json_orients``,
``layout``), each column's role (``mapping``, ``cells``), then the dataset with every conversion said (``build``)."""
