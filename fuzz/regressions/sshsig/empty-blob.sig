-----BEGIN SSH SIGNATURE-----
   
-----END SSH SIGNATURE-----
