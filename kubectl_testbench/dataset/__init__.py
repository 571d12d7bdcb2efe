"""``kubectl testbench dataset``'s libraries: an inline dataset exported as ``experiment.json``, and a dataset
file uploaded to S3/MinIO with the settings the setup phase reads."""
